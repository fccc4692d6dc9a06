"""The history use cases (docs/history.md): a story's conversations, one transcript, an
export, an erasure; always of a story of the caller's account."""

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Protocol

from bot_api.changes import ChangeFeed, ConversationErased
from bot_api.domain.history import TurnRecord
from bot_api.history.recorder import TurnRecorder
from bot_api.history.repository import ConversationFilter, ConversationPage, TurnStore
from bot_api.stories.repository import StoryStore
from bot_api.stories.service import load_story
from shared.errors import NotFound, ValidationFailed

MAX_EXPORT_TURNS = 20_000
"""Turns one export answers (oldest first): about 20 MB of JSON lines without vectors,
streamed; a longer range is exported in parts by `from`/`to`."""


class Sessions(Protocol):
    """What an erasure needs of the sessions (query.repository.SessionStore)."""

    async def delete(self, story_id: str, session_id: str) -> bool:
        """Forget the session's state; False when there was none."""


class TurnCopies(Protocol):
    """What keeps a copy of a story's turns in the database (inbox.snapshots'
    `InboxSnapshotStore`, which the layout puts above this feature): an erasure drops it."""

    async def invalidate(self, story_id: str) -> None: ...


class HistoryService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        sessions: Sessions,
        turns: TurnStore,
        recorder: TurnRecorder,
        changes: ChangeFeed,
        turn_copies: TurnCopies,
    ) -> None:
        """`recorder`: where /query's turns wait to be written; an erasure drops the
        session's, then the copy `turn_copies` keeps of the story's turns (the inbox's
        snapshot, which holds their texts), and announces itself (`ConversationErased`)
        to what keeps a copy in this process."""
        self._stories = stories
        self._sessions = sessions
        self._turns = turns
        self._recorder = recorder
        self._changes = changes
        self._turn_copies = turn_copies

    async def conversations(
        self,
        *,
        account_id: str,
        story_id: str,
        found: ConversationFilter,
        cursor: str | None,
        limit: int,
    ) -> ConversationPage:
        story = await load_story(self._stories, account_id, story_id)
        try:
            return await self._turns.conversations_page(story.id, found, cursor, limit)
        except ValueError as error:
            raise ValidationFailed.at(("cursor",), str(error)) from None

    async def transcript(
        self, *, account_id: str, story_id: str, session_id: str
    ) -> list[TurnRecord]:
        story = await load_story(self._stories, account_id, story_id)
        turns = await self._turns.transcript(story.id, session_id)
        if not turns:
            raise NotFound(f"no conversation {session_id} in story {story_id}")
        return turns

    async def delete(self, *, account_id: str, story_id: str, session_id: str) -> None:
        """Erase the conversation: its live session first (its parameters, contexts and any
        handoff; a channel's session too, whose id is the one its turns carry), so that
        the next message starts afresh instead of bringing them back, then its turns,
        those still queued to be written included."""
        story = await load_story(self._stories, account_id, story_id)
        had_session = await self._sessions.delete(story.id, session_id)
        queued = self._recorder.forget(story.id, session_id)
        had_turns = await self._turns.delete_conversation(story.id, session_id)
        if not (had_session or queued or had_turns):
            raise NotFound(f"no conversation {session_id} in story {story_id}")
        await self._turn_copies.invalidate(story.id)
        await self._changes.announce(ConversationErased(account_id, story.id, session_id))

    async def export(
        self,
        *,
        account_id: str,
        story_id: str,
        since: datetime | None,
        until: datetime | None,
    ) -> AsyncIterator[TurnRecord]:
        """The turns of [since, until) (without them: everything kept), oldest first, at
        most `MAX_EXPORT_TURNS`; the story is checked before anything is answered."""
        story = await load_story(self._stories, account_id, story_id)
        if since is not None and until is not None and since >= until:
            raise ValidationFailed.at(("from",), "from must be before to")
        return self._turns.export(story.id, since, until, MAX_EXPORT_TURNS)
