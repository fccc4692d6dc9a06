"""The misses inbox in memory: InboxInMemory, held to InboxRepository's contract by
test_inbox_repository.py beside it, and InboxSnapshotsInMemory, held to
InboxSnapshotRepository's by test_inbox_snapshots.py.
"""

import copy
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from bot_api.domain.history import Resolution
from bot_api.engine.clustering import Miss, normalised
from bot_api.history.documents import resolution_to_document, vector_from_document, vector_model
from bot_api.inbox.repository import MAX_INBOX_TURNS, PROMPT_CONTINUED
from bot_api.inbox.snapshots import MAX_SNAPSHOT_BYTES, InboxSnapshot, decoded
from integration.bot_api.history.memory import TurnsInMemory


class InboxInMemory:
    """The misses inbox's view of the `turns` collection and its ignored texts, as
    `InboxRepository` keeps them: it reads the turn documents of the
    `TurnsInMemory` it is given, as the repository reads what `TurnRepository` wrote."""

    def __init__(self, collection: TurnsInMemory) -> None:
        self.collection = collection
        self.ignored: dict[str, set[str]] = {}

    @property
    def turns(self) -> list[dict[str, Any]]:
        return list(self.collection.turns.values())

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert_turns(self, documents: Iterable[dict[str, Any]]) -> None:
        """Turn documents as a test writes them straight into the collection."""
        for document in documents:
            self.collection.turns[str(document["_id"])] = copy.deepcopy(document)

    async def unresolved(
        self,
        story_id: str,
        review_below: float,
        model_id: str | None,
        since: datetime | None = None,
    ) -> list[Miss]:
        def missed(document: dict[str, Any]) -> bool:
            if document.get("test") is True:
                return False
            return (
                document["outcome"] == "fallback"
                or (document["outcome"] == "matched" and document["score"] < review_below)
                or (
                    document["outcome"] == "incomplete"
                    and document["score"] < min(review_below, PROMPT_CONTINUED)
                )
            )

        found = [
            d
            for d in self.turns
            if d["storyId"] == story_id
            and d.get("resolution") is None
            and isinstance(d.get("query"), str)
            and (since is None or d["at"] >= since)
            and missed(d)
        ]
        found.sort(key=lambda d: d["at"], reverse=True)
        ignored = self.ignored.get(story_id, set())
        kept = [d for d in found[:MAX_INBOX_TURNS] if normalised(d["query"]) not in ignored]
        newest = {normalised(d["query"]): d["_id"] for d in reversed(kept)}
        carrying = set(newest.values())
        return [
            Miss(
                str(d["_id"]),
                d["query"],
                d["at"],
                vector_from_document(d["vector"])
                if d["_id"] in carrying and model_id and vector_model(d) == model_id
                else None,
                d.get("expiresAt"),
                d.get("language"),
            )
            for d in kept
        ]

    async def resolve(self, story_id: str, turn_ids: Sequence[str], resolution: Resolution) -> int:
        return self._set(story_id, turn_ids, resolution_to_document(resolution))

    async def reopen(self, story_id: str, turn_ids: Sequence[str]) -> int:
        wanted = set(turn_ids)
        ignored = {
            normalised(d["query"])
            for d in self.turns
            if str(d["_id"]) in wanted
            and d["storyId"] == story_id
            and (d.get("resolution") or {}).get("action") == "ignored"
        }
        self.ignored.get(story_id, set()).difference_update(ignored)
        return self._set(story_id, turn_ids, None)

    def _set(
        self, story_id: str, turn_ids: Sequence[str], resolution: dict[str, Any] | None
    ) -> int:
        """Set the resolution of these turns of the story that are not already (un)resolved."""
        wanted = set(turn_ids)
        changed = 0
        for document in self.turns:
            mine = str(document["_id"]) in wanted and document["storyId"] == story_id
            if mine and (document.get("resolution") is None) != (resolution is None):
                document["resolution"] = resolution
                changed += 1
        return changed

    async def ignore(self, story_id: str, texts: Iterable[str], by: str, at: datetime) -> None:
        self.ignored.setdefault(story_id, set()).update({normalised(t) for t in texts} - {""})

    async def delete_for_story(self, story_id: str) -> None:
        self.ignored.pop(story_id, None)


class InboxSnapshotsInMemory:
    """Snapshots of inboxes as `InboxSnapshotRepository` keeps them:
    the payload as written, decoded when read, and each story's generation."""

    def __init__(self) -> None:
        self.generations: dict[str, int] = {}
        self.payloads: dict[str, bytes] = {}

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def generation(self, story_id: str) -> int:
        return self.generations.get(story_id, 0)

    async def read(self, story_id: str) -> InboxSnapshot | None:
        payload = self.payloads.get(story_id)
        return None if payload is None else decoded(payload)

    async def write(self, story_id: str, generation: int, payload: bytes) -> bool:
        if len(payload) > MAX_SNAPSHOT_BYTES or self.generations.get(story_id, 0) != generation:
            return False
        self.payloads[story_id] = payload
        return True

    async def invalidate(self, story_id: str) -> None:
        self.generations[story_id] = self.generations.get(story_id, 0) + 1
        self.payloads.pop(story_id, None)

    async def delete_for_story(self, story_id: str) -> None:
        self.generations.pop(story_id, None)
        self.payloads.pop(story_id, None)
