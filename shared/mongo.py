"""Opening the MongoDB client; every service uses the same settings."""

from typing import Any

from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

Document = dict[str, Any]
Client = AsyncMongoClient[Document]
Database = AsyncDatabase[Document]

SERVER_SELECTION_TIMEOUT_MS = 3000
SOCKET_TIMEOUT_MS = 10000  # a call the server never answers fails (503) instead of hanging


def open_client(url: str) -> Client:
    return AsyncMongoClient(
        url,
        serverSelectionTimeoutMS=SERVER_SELECTION_TIMEOUT_MS,
        socketTimeoutMS=SOCKET_TIMEOUT_MS,
        tz_aware=True,
        uuidRepresentation="standard",
    )
