"""The analytics counters: told of every batch of recorded turns (a `TurnListener` of
the history recorder), and read by the analytics report (docs/analytics.md); a deleted
story's counters go with it (`StoryService.delete`)."""

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from bot_api.domain.analytics import (
    ANY,
    BucketKey,
    Conversation,
    Segment,
    SessionKey,
    Tally,
    add_to,
    conversation_change,
    conversations_seen,
    message_tallies,
)
from bot_api.domain.history import TurnRecord

log = logging.getLogger("parley.analytics")

MAX_CONVERSATION_RETRIES = 20
"""A conversation's mark is written conditionally on what was read; another process
counting the same session can make the write miss, and then it is read again."""


class AnalyticsStore(Protocol):
    async def ensure_indexes(self) -> None: ...

    async def conversations_of(
        self, keys: Iterable[SessionKey]
    ) -> dict[SessionKey, Conversation]: ...

    async def insert_conversations(
        self, conversations: Mapping[SessionKey, Conversation]
    ) -> set[SessionKey]:
        """The keys another writer had stored already (those are left as they are)."""

    async def replace_conversation(
        self, key: SessionKey, before: Conversation, after: Conversation
    ) -> bool:
        """False when the stored conversation is no longer `before`."""

    async def add(self, tallies: Mapping[BucketKey, Tally]) -> None: ...

    async def hours_of(
        self, story_id: str, first: int, end: int, only: Segment = ANY
    ) -> dict[int, Tally]:
        """The story's counted hours in [first, end), summed over the segments `only`
        matches (its source and channel; None: any)."""

    async def first_hour(self, story_id: str) -> int | None:
        """The story's earliest counted hour (None: nothing counted)."""

    async def delete_for_story(self, story_id: str) -> None: ...


class AnalyticsCounters:
    def __init__(self, store: AnalyticsStore) -> None:
        self.store = store

    async def turns_written(self, turns: Sequence[TurnRecord]) -> None:
        """Count a batch: its conversations' marks first (each moved at most once per
        batch, conditionally), then every hour it touched in one bulk write. Not
        idempotent: a batch told twice is counted twice (the recorder tells each once,
        and logs a failure without telling it again). The console's test chat's turns are
        not counted: its tries are no visitor's conversations; nor is a take-over at the
        agent desk, which is no message (docs/analytics.md)."""
        turns = [turn for turn in turns if not turn.test and not turn.taken_over]
        tallies = message_tallies(turns)
        for key, change in (await self._conversation_changes(conversations_seen(turns))).items():
            add_to(tallies, key, change)
        await self.store.add(tallies)

    async def _conversation_changes(
        self, seen: Mapping[SessionKey, Conversation]
    ) -> dict[BucketKey, Tally]:
        changes: dict[BucketKey, Tally] = {}

        def count(key: SessionKey, before: Conversation | None, after: Conversation) -> None:
            for bucket, change in conversation_change(key[0], before, after).items():
                add_to(changes, bucket, change)

        pending = dict(seen)
        for _ in range(MAX_CONVERSATION_RETRIES):
            if not pending:
                return changes
            stored = await self.store.conversations_of(pending)
            new = {key: mark for key, mark in pending.items() if key not in stored}
            missed = await self.store.insert_conversations(new)
            for key in new.keys() - missed:
                count(key, None, new[key])
            for key, before in stored.items():
                after = before.merged(pending[key])
                if after == before:
                    continue
                if await self.store.replace_conversation(key, before, after):
                    count(key, before, after)
                else:
                    missed.add(key)
            pending = {key: pending[key] for key in missed}
        log.warning("analytics: %d conversations left uncounted under contention", len(pending))
        return changes
