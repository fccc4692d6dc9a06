"""SessionsInMemory, the `sessions` collection in memory, held to SessionRepository's
contract by test_session_repository.py beside it: a save is conditional on the
version it read.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot_api.engine.turn import SessionState
from bot_api.query.repository import OpenHandoff, StoredSession, TurnReply, session_key
from shared.pages import Page
from shared.timeutil import utcnow
from support.journal import InMemory, Journal


@dataclass(frozen=True)
class _Session:
    state: SessionState
    version: int
    expires_at: datetime
    replies: tuple[TurnReply, ...]


class SessionsInMemory(InMemory):
    def __init__(self, database: Journal) -> None:
        super().__init__(database)
        self.sessions: dict[str, _Session] = {}
        """By `story id:session id`."""

    async def load(self, story_id: str, session_id: str) -> StoredSession:
        await self._database.record("sessions.load", story_id, session_id)
        stored = self.sessions.get(session_key(story_id, session_id))
        if stored is None:
            return StoredSession(SessionState(), 0)
        if stored.expires_at <= utcnow():
            return StoredSession(SessionState(), stored.version)
        return StoredSession(stored.state, stored.version, stored.replies)

    async def save(
        self,
        story_id: str,
        session_id: str,
        read_version: int,
        state: SessionState,
        idle_timeout: timedelta,
        replies: tuple[TurnReply, ...] = (),
    ) -> bool:
        await self._database.record("sessions.save", story_id, session_id)
        key = session_key(story_id, session_id)
        stored = self.sessions.get(key)
        if (0 if stored is None else stored.version) != read_version:
            return False
        self.sessions[key] = _Session(state, read_version + 1, utcnow() + idle_timeout, replies)
        return True

    async def open_handoffs(
        self, story_id: str, active_since: datetime, page: Page
    ) -> tuple[list[OpenHandoff], int]:
        await self._database.record("sessions.open_handoffs", story_id)
        prefix = session_key(story_id, "")
        found = sorted(
            (
                (stored.state.handoff.since, key, stored.state.handoff)
                for key, stored in self.sessions.items()
                if key.startswith(prefix)
                and stored.expires_at > utcnow()
                and stored.state.handoff is not None
                and stored.state.handoff.last_message_at > active_since
            ),
            key=lambda found: found[:2],
        )
        items = [OpenHandoff(key[len(prefix) :], handoff) for _, key, handoff in found]
        return page.of(items), len(items)

    async def delete(self, story_id: str, session_id: str) -> bool:
        await self._database.record("sessions.delete", story_id, session_id)
        return self.sessions.pop(session_key(story_id, session_id), None) is not None

    async def delete_for_story(self, story_id: str) -> None:
        await self._database.record("sessions.delete_for_story", story_id)
        for key in [k for k in self.sessions if k.startswith(f"{story_id}:")]:
            del self.sessions[key]
