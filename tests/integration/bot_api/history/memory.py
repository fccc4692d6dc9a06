"""TurnsInMemory, the `turns` and `conversations` collections in memory, held to
TurnRepository's contract by test_turn_repository.py beside it.
"""

from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from typing import Any

from bson import ObjectId
from pymongo.errors import AutoReconnect

from bot_api.domain.history import TurnRecord
from bot_api.history.documents import turn_from_document, turn_to_document
from bot_api.history.repository import (
    MAX_TRANSCRIPT_TURNS,
    ConversationFilter,
    ConversationPage,
    ConversationSummary,
    StoredTurn,
    decode_cursor,
    encode_cursor,
    summary_changes,
)


class TurnsInMemory:
    """The `turns` and `conversations` collections as `TurnRepository` keeps them:
    each turn as the document it stores (`turns`, by id), which the inbox's
    fake reads too; a turn stored twice (a batch tried again) counts once."""

    def __init__(self) -> None:
        self.turns: dict[str, dict[str, Any]] = {}
        self.summaries: dict[tuple[str, str], dict[str, Any]] = {}
        self.away = False
        """True: every write fails as with MongoDB unreachable."""
        self.batches: list[int] = []
        """The size of each batch stored."""

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert_many(self, turns: Sequence[StoredTurn]) -> None:
        if self.away:
            raise AutoReconnect("the database is away")
        self.batches.append(len(turns))
        fresh = [t for t in turns if t.id not in self.turns]
        for stored in fresh:
            document = turn_to_document(stored.turn, stored.expires_at)
            self.turns[stored.id] = {"_id": ObjectId(stored.id), **document}
        for key, change in summary_changes(fresh).items():
            summary = self.summaries.setdefault(key, {**change, "turns": 0, "fallbacks": 0})
            summary["startedMs"] = min(summary["startedMs"], change["startedMs"])
            summary["lastAtMs"] = max(summary["lastAtMs"], change["lastAtMs"])
            summary["turns"] += change["turns"]
            summary["fallbacks"] += change["fallbacks"]
            summary["outcomes"] = sorted({*summary["outcomes"], *change["outcomes"]})
            summary["interactions"] = sorted({*summary["interactions"], *change["interactions"]})
            for field in ("sources", "channels", "languages"):
                summary[field] = sorted({*summary.get(field, ()), *change[field]})
            summary["test"] = summary["test"] or change["test"]

    async def conversations_page(
        self, story_id: str, found: ConversationFilter, cursor: str | None, limit: int
    ) -> ConversationPage:
        saying = {
            d["sessionId"]
            for d in self.turns.values()
            if found.text is not None and found.text.lower() in (d.get("query") or "").lower()
        }
        position = None if cursor is None else decode_cursor(cursor)
        chosen = [
            (summary, session)
            for (story, session), summary in self.summaries.items()
            if story == story_id
            and (found.since is None or summary["lastAtMs"] >= found.since.timestamp() * 1000)
            and (found.until is None or summary["startedMs"] < found.until.timestamp() * 1000)
            and (found.outcome is None or found.outcome in summary["outcomes"])
            and (found.interaction is None or found.interaction in summary["interactions"])
            and (found.source is None or found.source in summary.get("sources", ()))
            and (found.channel is None or found.channel in summary.get("channels", ()))
            and (found.language is None or found.language in summary.get("languages", ()))
            and (found.test is None or found.test == summary["test"])
            and (found.text is None or session in saying)
            and (position is None or (summary["lastAtMs"], session) < position)
        ]
        chosen.sort(key=lambda pair: (pair[0]["lastAtMs"], pair[1]), reverse=True)
        items = tuple(
            ConversationSummary(
                session_id=session,
                started=datetime.fromtimestamp(summary["startedMs"] / 1000, UTC),
                last_at=datetime.fromtimestamp(summary["lastAtMs"] / 1000, UTC),
                turns=summary["turns"],
                fallbacks=summary["fallbacks"],
            )
            for summary, session in chosen[: limit + 1]
        )
        more = len(items) > limit
        return ConversationPage(items[:limit], encode_cursor(items[limit - 1]) if more else None)

    async def transcript(self, story_id: str, session_id: str) -> list[TurnRecord]:
        return [stored.turn for stored in await self.stored_transcript(story_id, session_id)]

    async def stored_transcript(self, story_id: str, session_id: str) -> list[StoredTurn]:
        stored = [
            StoredTurn(str(d["_id"]), turn_from_document(d), d["expiresAt"])
            for d in self.turns.values()
            if (d["storyId"], d["sessionId"]) == (story_id, session_id)
        ]
        return sorted(stored, key=lambda s: s.turn.at)[:MAX_TRANSCRIPT_TURNS]

    async def export(
        self, story_id: str, since: datetime | None, until: datetime | None, limit: int
    ) -> AsyncIterator[TurnRecord]:
        turns = sorted(self._of_story(story_id), key=lambda t: t.at)
        chosen = [
            t for t in turns if (since is None or since <= t.at) and (until is None or t.at < until)
        ]
        for turn in chosen[:limit]:
            yield turn

    async def delete_conversation(self, story_id: str, session_id: str) -> bool:
        for turn_id, document in list(self.turns.items()):
            if document["storyId"] == story_id and document["sessionId"] == session_id:
                del self.turns[turn_id]
        return self.summaries.pop((story_id, session_id), None) is not None

    async def delete_for_story(self, story_id: str) -> None:
        for turn_id, document in list(self.turns.items()):
            if document["storyId"] == story_id:
                del self.turns[turn_id]
        for key in [k for k in self.summaries if k[0] == story_id]:
            del self.summaries[key]

    def _of_story(self, story_id: str) -> list[TurnRecord]:
        return [turn_from_document(d) for d in self.turns.values() if d["storyId"] == story_id]
