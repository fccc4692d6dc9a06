"""Opening the MongoDB client; every service uses the same settings."""

from pymongo import AsyncMongoClient

SERVER_SELECTION_TIMEOUT_MS = 3000
SOCKET_TIMEOUT_MS = 10000  # a call the server never answers fails (503) instead of hanging


def open_client(url: str) -> AsyncMongoClient:
    return AsyncMongoClient(
        url,
        serverSelectionTimeoutMS=SERVER_SELECTION_TIMEOUT_MS,
        socketTimeoutMS=SOCKET_TIMEOUT_MS,
        tz_aware=True,
        uuidRepresentation="standard",
    )
