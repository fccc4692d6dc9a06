"""Opening the MongoDB client; every service uses the same settings."""

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pymongo import AsyncMongoClient
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.asynchronous.cursor import AsyncCursor
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import BulkWriteError

from shared.pages import Page

Document = dict[str, Any]
Client = AsyncMongoClient[Document]
Database = AsyncDatabase[Document]

T = TypeVar("T")

DUPLICATE_KEY = 11000
PAGE = 1000
"""Ids or texts per query of many (`in_pages`)."""
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


async def insert_new(collection: AsyncCollection[Document], documents: list[Document]) -> list[int]:
    """Insert the documents not stored yet (by `_id` or a unique index), unordered: a
    batch written again after a failure stores nothing twice. The indexes of those that
    were stored already; any other failure, a write concern's included, is raised."""
    try:
        await collection.insert_many(documents, ordered=False)
    except BulkWriteError as error:
        details = error.details
        errors = details["writeErrors"]
        if details.get("writeConcernErrors") or any(e["code"] != DUPLICATE_KEY for e in errors):
            raise
        return [e["index"] for e in errors]
    return []


def in_pages(items: Sequence[T]) -> Iterator[list[T]]:
    """`items` `PAGE` at a time: one `$in` or insert never carries an unbounded list."""
    for start in range(0, len(items), PAGE):
        yield list(items[start : start + PAGE])


def of_account(account_id: str, stories: frozenset[str] | None) -> dict[str, Any]:
    """The filter of an account's records, or of those of the stories in `stories` (a
    member narrowed to them, shared/roles.py)."""
    if stories is None:
        return {"accountId": account_id}
    return {"accountId": account_id, "storyId": {"$in": sorted(stories)}}
