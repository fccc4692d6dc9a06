"""AnalyticsInMemory, the analytics counters in memory, held to AnalyticsRepository's
contract by test_analytics_repository.py beside it.
"""

from collections.abc import Iterable, Mapping

from bot_api.domain.analytics import ANY, BucketKey, Conversation, Segment, SessionKey, Tally
from support.journal import Action


class AnalyticsInMemory:
    """Hour counters and conversation marks, as `AnalyticsRepository` keeps them.
    `meanwhile` runs actions before the next conditional writes look at the data:
    another process counting the same sessions."""

    def __init__(self) -> None:
        self.hours: dict[BucketKey, Tally] = {}
        self.conversations: dict[SessionKey, Conversation] = {}
        self._meanwhile: list[Action] = []

    def meanwhile(self, action: Action) -> None:
        self._meanwhile.append(action)

    async def _before_write(self) -> None:
        while self._meanwhile:
            await self._meanwhile.pop(0)()

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def conversations_of(self, keys: Iterable[SessionKey]) -> dict[SessionKey, Conversation]:
        return {key: self.conversations[key] for key in keys if key in self.conversations}

    async def insert_conversations(
        self, conversations: Mapping[SessionKey, Conversation]
    ) -> set[SessionKey]:
        await self._before_write()
        missed = {key for key in conversations if key in self.conversations}
        for key, mark in conversations.items():
            self.conversations.setdefault(key, mark)
        return missed

    async def replace_conversation(
        self, key: SessionKey, before: Conversation, after: Conversation
    ) -> bool:
        await self._before_write()
        if self.conversations.get(key) != before:
            return False
        self.conversations[key] = after
        return True

    async def add(self, tallies: Mapping[BucketKey, Tally]) -> None:
        for key, tally in tallies.items():
            self.hours[key] = self.hours.get(key, Tally()) + tally

    async def hours_of(
        self, story_id: str, first: int, end: int, only: Segment = ANY
    ) -> dict[int, Tally]:
        found: dict[int, Tally] = {}
        for (story, hour, segment), tally in self.hours.items():
            matches = all(wanted in (None, its) for wanted, its in zip(only, segment, strict=True))
            if story == story_id and first <= hour < end and matches:
                found[hour] = found.get(hour, Tally()) + tally
        return found

    async def first_hour(self, story_id: str) -> int | None:
        return min((hour for story, hour, _ in self.hours if story == story_id), default=None)

    async def delete_for_story(self, story_id: str) -> None:
        for key in [k for k in self.hours if k[0] == story_id]:
            del self.hours[key]
        for key in [k for k in self.conversations if k[0] == story_id]:
            del self.conversations[key]
