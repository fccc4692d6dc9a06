"""The misses inbox's reads and writes: the unresolved turns of a story that fell back, or
matched (or started a prompt) below its `reviewBelow` score, but the console's test
chat's (from the `turns` collection, history/repository.py),
their resolution, and the texts a team ignored (`inbox_ignored`, one document per story
and normalised text, so an ignored message never comes back).

The inbox reads the newest `MAX_INBOX_TURNS` such turns: what one request clusters and
answers is bounded however many a story collects (docs/history.md).
"""

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from bson import ObjectId
from pymongo import DESCENDING

from bot_api.domain.history import Resolution
from bot_api.engine.clustering import Miss, normalised
from bot_api.history.documents import resolution_to_document, vector_from_document, vector_model
from bot_api.indexed import Indexed
from shared.ids import is_object_id
from shared.mongo import Database, in_pages, insert_new

MAX_INBOX_TURNS = 10_000
"""Unresolved turns one inbox read takes, newest first. Clustering 10,000 took 0.05 to 0.25 s
when messages repeat and 0.45 to 0.6 s when no two are alike on a quiet 2-core machine
(about 1 s when it ran 3 times the work it has cores for); reading them from nx-27017
takes longer, 1 to 4 s (docs/benchmarks.md, "The misses inbox's clustering" and "The
misses inbox over HTTP")."""
UNRESOLVED = {"$eq": None}
"""`resolution` null or missing: the embedded server's `{"resolution": None}` matches
nothing (docs/mongodb-compatibility.md); `$eq` means the same on MongoDB."""
RESOLVED = {"$ne": None}
"""`resolution` set (an object): `$type` costs the embedded server 3 ms a document, and an
undo of 1,000 turns outlived the 10 s socket timeout."""
NOT_TEST = {"$ne": True}
"""Not the console's test chat: `test` false or missing (turns stored before it was kept)."""
PROMPT_CONTINUED = 1.0
"""The score a turn answering an interaction's prompt is stored with (engine/conversation.py
`_ask`): it matched nothing new, so it is no miss, whatever `reviewBelow` says."""
FIELDS = ["at", "query", "expiresAt", "language"]


class InboxRepository:
    def __init__(self, database: Database) -> None:
        self.turns = database["turns"]
        self.ignored = database["inbox_ignored"]

    async def ensure_indexes(self) -> None:
        """The inbox's read: a story's unresolved turns of an outcome, newest first."""
        await self.turns.create_index(
            [("storyId", 1), ("outcome", 1), ("resolution", 1), ("at", DESCENDING)]
        )
        await self.ignored.create_index([("storyId", 1), ("text", 1)], unique=True)

    async def unresolved(
        self,
        story_id: str,
        review_below: float,
        model_id: str | None,
        since: datetime | None = None,
    ) -> list[Miss]:
        """The newest `MAX_INBOX_TURNS` unresolved turns (recorded at or after `since`,
        when given) that fell back, or matched with a
        score below `review_below` (also those whose match started a prompt: outcome
        `incomplete`), but those whose text was ignored and the test chat's; newest first. The
        newest turn of each normalised text carries its vector if `model_id` made it
        (what clustering uses; None: no vectors):
        vectors are most of a turn's bytes, so the others' are not read. (No `$type` in
        the filters: the embedded server takes 3 ms a document to check one, against 0.3
        ms to read it. One query of the three kinds of miss, not one query each: nx-27017
        scans the story's turns for each, and the turns recorded since a read were found
        in 0.08 s instead of 0.21 s among 12,000.)"""
        unresolved = {"storyId": story_id, "resolution": UNRESOLVED, "test": NOT_TEST}
        if since is not None:
            unresolved["at"] = {"$gte": since}
        missed = [
            {"outcome": "fallback"},
            {"outcome": "matched", "score": {"$lt": review_below}},
            {"outcome": "incomplete", "score": {"$lt": min(review_below, PROMPT_CONTINUED)}},
        ]
        cursor = self.turns.find({**unresolved, "$or": missed}, FIELDS)
        found = await cursor.sort("at", DESCENDING).limit(MAX_INBOX_TURNS).to_list()
        documents = [d for d in found if isinstance(d.get("query"), str)]
        newest = {normalised(d["query"]): d["_id"] for d in reversed(documents)}
        ignored = await self._ignored(story_id, set(newest))
        kept = [i for k, i in newest.items() if k not in ignored]
        vectors = await self._vectors(kept, model_id) if model_id else {}
        return [
            Miss(
                str(d["_id"]),
                d["query"],
                d["at"],
                vectors.get(d["_id"]),
                d.get("expiresAt"),
                d.get("language"),
            )
            for d in documents
            if normalised(d["query"]) not in ignored
        ]

    async def resolve(self, story_id: str, turn_ids: Sequence[str], resolution: Resolution) -> int:
        """Mark these turns of the story resolved (those not resolved yet); how many."""
        return await self._set(story_id, turn_ids, UNRESOLVED, resolution_to_document(resolution))

    async def reopen(self, story_id: str, turn_ids: Sequence[str]) -> int:
        """Put these resolved turns of the story back in the inbox (an undo), the texts
        of those that were ignored no longer ignored; how many."""
        ignored = []
        for page in in_pages([_turn_key(t) for t in turn_ids]):
            query = {"_id": {"$in": page}, "storyId": story_id}
            async for document in self.turns.find(query, ["query", "resolution"]):
                if (document.get("resolution") or {}).get("action") == "ignored":
                    ignored.append(normalised(document["query"]))
        for texts in in_pages(sorted(set(ignored))):
            await self.ignored.delete_many({"storyId": story_id, "text": {"$in": texts}})
        return await self._set(story_id, turn_ids, RESOLVED, None)

    async def _set(
        self,
        story_id: str,
        turn_ids: Sequence[str],
        current: dict[str, Any],
        resolution: dict[str, Any] | None,
    ) -> int:
        changed = 0
        for page in in_pages([_turn_key(t) for t in turn_ids]):
            result = await self.turns.update_many(
                {"_id": {"$in": page}, "storyId": story_id, "resolution": current},
                {"$set": {"resolution": resolution}},
            )
            changed += result.modified_count
        return changed

    async def ignore(self, story_id: str, texts: Iterable[str], by: str, at: datetime) -> None:
        """Remember these texts (by their normalised form) as ignored for the story."""
        keys = sorted({normalised(t) for t in texts} - {""})
        documents = [{"storyId": story_id, "text": k, "by": by, "at": at} for k in keys]
        for page in in_pages(documents):
            await insert_new(self.ignored, page)

    async def delete_for_story(self, story_id: str) -> None:
        await self.ignored.delete_many({"storyId": story_id})

    async def _vectors(
        self, turn_ids: Sequence[Any], model_id: str
    ) -> dict[Any, tuple[float, ...]]:
        found: dict[Any, tuple[float, ...]] = {}
        for page in in_pages(turn_ids):
            query = {"_id": {"$in": page}}
            async for document in self.turns.find(query, ["vector", "vectorModel"]):
                if vector_model(document) == model_id:
                    found[document["_id"]] = vector_from_document(document["vector"])
        return found

    async def _ignored(self, story_id: str, keys: set[str]) -> set[str]:
        found: set[str] = set()
        for page in in_pages(sorted(keys)):
            cursor = self.ignored.find({"storyId": story_id, "text": {"$in": page}}, ["text"])
            found |= {d["text"] async for d in cursor}
        return found


def _turn_key(turn_id: str) -> object:
    """Turns are inserted with ObjectIds; an id given as text is one again."""
    return ObjectId(turn_id) if is_object_id(turn_id) else turn_id


class InboxStore(Indexed, Protocol):
    """The misses inbox's reads and writes (inbox/repository.py)."""

    async def unresolved(
        self,
        story_id: str,
        review_below: float,
        model_id: str | None,
        since: datetime | None = None,
    ) -> list[Miss]:
        """The newest unresolved turns (recorded at or after `since`, when given) that fell
        back or matched below `review_below`, newest first, but those whose text the
        story ignored; the newest of each normalised text carries its vector."""

    async def resolve(self, story_id: str, turn_ids: Sequence[str], resolution: Resolution) -> int:
        """Mark these of the story's turns resolved, if not yet; how many were."""

    async def reopen(self, story_id: str, turn_ids: Sequence[str]) -> int:
        """Put these resolved turns of the story back in the inbox, the texts of those
        that were ignored no longer ignored; how many were."""

    async def ignore(self, story_id: str, texts: Iterable[str], by: str, at: datetime) -> None:
        """Remember these texts, normalised, as ignored for the story."""

    async def delete_for_story(self, story_id: str) -> None: ...
