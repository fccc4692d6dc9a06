"""The `phrase_vectors` collection: one sentence vector per phrase text and model, and
the stories that use it.

`_id` is `engine.semantic.vector_key` (a hash of the model id and the normalised text),
so the same text is encoded once for every story and account that uses it; the vector
is stored as float16 bytes. A key's vector never changes (the same model reads the same
text the same way), so a put inserts and leaves the vectors already stored: inserts are
what the embedded server writes fastest (docs/mongodb-compatibility.md).

`stories` lists the stories that took the vector (a compile that read it, an encoding
that stored it). A sweep of a story takes it off the vectors its current phrases no
longer produce and deletes those no story lists any more. A read marks before it
returns, and a vector swept between the two is left out, so a story is never handed a
vector marked by no one; a sweep that raced an edit of the same story can still take
the story off a vector it has just read, and then the next compile that misses it
encodes it again (docs/matching.md).
"""

from collections.abc import Iterable, Mapping
from typing import Protocol

import numpy as np

from bot_api.engine.semantic import StoredVectors, Vectors
from bot_api.indexed import Indexed
from shared.mongo import PAGE, Database, in_pages, insert_new

STORY_PAGE = 10 * PAGE
"""Vectors a deleted story is taken off per sweep: ten pages of ids in memory at most."""

"""Keys per query: a story's vectors are read in pages of this many ids."""


class PhraseVectorRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["phrase_vectors"]

    async def ensure_indexes(self) -> None:
        """`_id` for reads; `stories` for a sweep's look-up of a story's vectors."""
        await self.collection.create_index("stories")

    async def take(self, story_id: str, keys: Iterable[str]) -> dict[str, StoredVectors]:
        """The stored vectors of these keys, each now marked as used by the story."""
        found: dict[str, StoredVectors] = {}
        for page in in_pages(list(dict.fromkeys(keys))):
            marked = await self._ids({"_id": {"$in": page}, **_marked_by(story_id)})
            unmarked = [k for k in page if k not in marked]
            if unmarked:
                await self._mark(unmarked, story_id)
            cursor = self.collection.find(
                {"_id": {"$in": page}, **_marked_by(story_id)}, {"vector": 1}
            )
            async for document in cursor:
                found[document["_id"]] = np.frombuffer(document["vector"], dtype=np.float16)
        return found

    async def stored(self, keys: Iterable[str]) -> set[str]:
        """Which of these keys have a vector stored: ids alone are read, and no story is
        marked (a replica looking for the vectors another is encoding, queues.py)."""
        found: set[str] = set()
        for page in in_pages(list(dict.fromkeys(keys))):
            found |= await self._ids({"_id": {"$in": page}})
        return found

    async def put(self, model_id: str, story_id: str, vectors: Mapping[str, Vectors]) -> None:
        """Store these vectors as used by the story; a key stored already keeps its
        vector and is marked."""
        if not vectors:
            return
        documents = [
            {
                "_id": key,
                "model": model_id,
                "vector": vector.astype(np.float16).tobytes(),
                "stories": [story_id],
            }
            for key, vector in vectors.items()
        ]
        stored = await insert_new(self.collection, documents)
        if stored:
            keys = list(vectors)
            await self._mark([keys[i] for i in stored], story_id)

    async def sweep(self, story_id: str, keep: set[str], limit: int) -> int:
        """Take the story off up to `limit` of the vectors it no longer uses (those not in
        `keep`), and delete those no story uses any more; how many it was taken off."""
        unused = [k for k in await self._ids(_marked_by(story_id)) if k not in keep][:limit]
        for page in in_pages(unused):
            await self.collection.update_many(
                {"_id": {"$in": page}}, {"$pull": {"stories": story_id}}
            )
            await self.collection.delete_many({"_id": {"$in": page}, "stories": {"$size": 0}})
        return len(unused)

    async def delete_for_story(self, story_id: str) -> None:
        """A deleted story taken off every vector it marks (those no story marks any more
        deleted), `STORY_PAGE` ids at a time."""
        while await self.sweep(story_id, set(), STORY_PAGE) == STORY_PAGE:
            pass

    async def _mark(self, keys: list[str], story_id: str) -> None:
        """Add the story to these vectors' `stories`, those stored before it existed
        included (the embedded server's `$addToSet` leaves a missing array missing)."""
        await self.collection.update_many(
            {"_id": {"$in": keys}, "stories": {"$exists": False}}, {"$set": {"stories": []}}
        )
        await self.collection.update_many(
            {"_id": {"$in": keys}}, {"$addToSet": {"stories": story_id}}
        )

    async def _ids(self, query: Mapping[str, object]) -> set[str]:
        return {d["_id"] async for d in self.collection.find(query, {"_id": 1})}


def _marked_by(story_id: str) -> dict[str, object]:
    """`{"stories": story_id}` as `$in`: the embedded server's equality on an indexed
    array finds nothing (docs/mongodb-compatibility.md)."""
    return {"stories": {"$in": [story_id]}}


class VectorStore(Indexed, Protocol):
    async def take(self, story_id: str, keys: Iterable[str]) -> dict[str, StoredVectors]: ...

    async def stored(self, keys: Iterable[str]) -> set[str]: ...

    async def put(self, model_id: str, story_id: str, vectors: Mapping[str, Vectors]) -> None: ...

    async def sweep(self, story_id: str, keep: set[str], limit: int) -> int: ...

    async def delete_for_story(self, story_id: str) -> None: ...
