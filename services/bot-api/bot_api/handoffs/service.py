"""The person's side of a handoff (docs/api.md "Handoffs"): a story's open handoffs,
a message to the user, the conversation given back; always of a story of the caller's
account. A message is announced (`HandoffMessageSent`): the publisher puts it on the
stream, and integrations-api sends it through the session's channel; the history
records it as a turn of the bot's (outcome `handoff`)."""

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

from bot_api.changes import ChangeFeed, HandoffMessageSent
from bot_api.engine.handoff import kept_for, open_handoff, persons_message
from bot_api.engine.turn import HandedOver, SessionState
from bot_api.history.recorder import TurnRecorder
from bot_api.query.repository import OpenHandoff, SessionStore
from bot_api.stories.repository import StoryStore
from bot_api.stories.service import load_story
from shared.errors import Conflict, NotFound
from shared.pages import MAX_PAGE, Page
from shared.timeutil import utcnow

MAX_SAVE_ATTEMPTS = 100

Change = Callable[[SessionState, HandedOver], SessionState]


class HandoffService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        sessions: SessionStore,
        changes: ChangeFeed,
        recorder: TurnRecorder,
        session_idle: timedelta,
        handoff_idle: timedelta,
    ) -> None:
        self._stories = stories
        self._sessions = sessions
        self._changes = changes
        self._recorder = recorder
        self._session_idle = session_idle
        self._handoff_idle = handoff_idle

    async def list_open(
        self, *, account_id: str, story_id: str, page: Page
    ) -> tuple[list[OpenHandoff], int]:
        """Oldest first; at most `MAX_PAGE` a page even when every item is asked for,
        since nothing bounds how many sessions a story's users hand over."""
        story = await load_story(self._stories, account_id, story_id)
        bounded = page if page.limit is not None else Page(page.offset, MAX_PAGE)
        active_since = utcnow() - self._handoff_idle
        return await self._sessions.open_handoffs(story.id, active_since, bounded)

    async def send(self, *, account_id: str, story_id: str, session_id: str, text: str) -> None:
        started = time.perf_counter()
        story = await load_story(self._stories, account_id, story_id)
        now = utcnow()
        state = await self._change(
            story.id,
            session_id,
            lambda state, handoff: replace(state, handoff=replace(handoff, last_message_at=now)),
        )
        await self._changes.announce(HandoffMessageSent(account_id, story.id, session_id, text))
        assert state.handoff is not None, "_change keeps the handoff open"
        turn, outcome = persons_message(story.id, story.settings, state, state.handoff, text)
        self._recorder.answered(
            account_id=account_id,
            session_id=session_id,
            settings=story.settings,
            turn=turn,
            outcome=outcome,
            webhook=None,
            started=started,
        )

    async def give_back(self, *, account_id: str, story_id: str, session_id: str) -> None:
        story = await load_story(self._stories, account_id, story_id)
        await self._change(story.id, session_id, lambda state, _: replace(state, handoff=None))

    async def _change(self, story_id: str, session_id: str, change: Change) -> SessionState:
        """Save `change` of the session's open handoff (NotFound without one), read again
        when a message of the session saved it meanwhile; the state saved."""
        sessions = self._sessions
        for _ in range(MAX_SAVE_ATTEMPTS):
            stored = await sessions.load(story_id, session_id)
            handoff = open_handoff(stored.state, utcnow(), self._handoff_idle)
            if handoff is None:
                raise NotFound(f"session {session_id} is not handed over")
            state = change(stored.state, handoff)
            kept = kept_for(state, self._session_idle, self._handoff_idle)
            if await sessions.save(story_id, session_id, stored.version, state, kept):
                return state
        raise Conflict("the session is being changed by too many messages at once; try again")
