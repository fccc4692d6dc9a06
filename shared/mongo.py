"""Opening the MongoDB client; every service uses the same settings."""

from typing import Any

from pymongo import AsyncMongoClient
from pymongo.asynchronous.cursor import AsyncCursor
from pymongo.asynchronous.database import AsyncDatabase

from shared.pages import Page

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


def paged(cursor: AsyncCursor[Document], page: Page) -> AsyncCursor[Document]:
    """`cursor` cut to `page`: every document from its offset when it has no limit."""
    cursor = cursor.skip(page.offset)
    return cursor if page.limit is None else cursor.limit(page.limit)
