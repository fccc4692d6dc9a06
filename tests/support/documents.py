"""Whole collections read back, so a repository test can say exactly which documents a
call changed and that every other one is untouched."""

from typing import Any

from bson import ObjectId
from pymongo.asynchronous.collection import AsyncCollection

Documents = dict[Any, dict[str, Any]]

# Three accounts, so a filter that loses its account condition shows on another account.
ACCOUNTS = tuple(str(ObjectId()) for _ in range(3))


async def contents(collection: AsyncCollection) -> Documents:
    return {document["_id"]: document async for document in collection.find({})}


def changed(before: Documents, after: Documents) -> set[str]:
    """The ids (as strings) of the documents added, removed or changed between two
    snapshots."""
    return {str(key) for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
