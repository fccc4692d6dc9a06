"""Opening the MongoDB client; every service uses the same settings."""

from pymongo import AsyncMongoClient

SERVER_SELECTION_TIMEOUT_MS = 3000


def open_client(url: str) -> AsyncMongoClient:
    return AsyncMongoClient(
        url,
        serverSelectionTimeoutMS=SERVER_SELECTION_TIMEOUT_MS,
        tz_aware=True,
        uuidRepresentation="standard",
    )
