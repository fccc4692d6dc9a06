"""The person's side of a handoff (docs/api.md "Handoffs", docs/teams.md "The agent
desk"): a story's open handoffs, one conversation's transcript, its live stream, a
message to the user, taking the conversation over and giving it back; always of a story
of the caller's account that the caller's role covers (`access.desk_covers`).

A message is announced (`HandoffMessageSent`): the publisher puts it on the stream, and
integrations-api sends it through the session's channel; the history records it as a
turn of the bot's (outcome `handoff`) with the person who wrote it, and so the take-over
(saying nothing, `taken_over`) and the give-back (`given_back`), so the desk's transcript
read again still shows them. Every line is announced to the open desks too
(`DeskLinesAdded`)."""

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot_api.changes import ChangeFeed, DeskLinesAdded, HandoffMessageSent
from bot_api.domain.desk import DeskEntry, entries_of
from bot_api.domain.history import TurnRecord
from bot_api.engine.handoff import kept_for, open_handoff, persons_message
from bot_api.engine.turn import HandedOver, SessionState
from bot_api.handoffs.access import desk_covers, person_of
from bot_api.handoffs.live import DeskStream, DeskStreams
from bot_api.history.recorder import TurnRecorder
from bot_api.history.repository import TurnStore
from bot_api.query.repository import OpenHandoff, SessionStore
from bot_api.stories.repository import StoryRecord, StoryStore
from bot_api.stories.service import load_story
from shared.auth import Principal
from shared.errors import Conflict, NotFound
from shared.ids import new_object_id
from shared.pages import MAX_PAGE, Page
from shared.timeutil import utcnow

MAX_SAVE_ATTEMPTS = 100

Change = Callable[[SessionState, HandedOver], SessionState]


@dataclass(frozen=True)
class DeskTurn:
    """A turn of the person's side, as the history keeps it: a message (`text`), the
    conversation taken over (no text) or given back (the story's return message), at
    `at`, in the session's `state` and `handoff` of that moment."""

    state: SessionState
    handoff: HandedOver
    text: str | None
    at: datetime
    given_back: bool = False
    taken_over: bool = False


@dataclass(frozen=True)
class DeskConversation:
    """One conversation as the desk opens it: its handoff if still open, and its lines."""

    handoff: HandedOver | None
    entries: list[DeskEntry]


class HandoffService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        sessions: SessionStore,
        turns: TurnStore,
        changes: ChangeFeed,
        recorder: TurnRecorder,
        streams: DeskStreams,
        session_idle: timedelta,
        handoff_idle: timedelta,
    ) -> None:
        self._stories = stories
        self._sessions = sessions
        self._turns = turns
        self._changes = changes
        self._recorder = recorder
        self._streams = streams
        self._session_idle = session_idle
        self._handoff_idle = handoff_idle

    async def list_open(
        self, *, principal: Principal, story_id: str, page: Page
    ) -> tuple[list[OpenHandoff], int]:
        """Oldest first; at most `MAX_PAGE` a page even when every item is asked for,
        since nothing bounds how many sessions a story's users hand over."""
        story = await self._covered(principal, story_id)
        bounded = page if page.limit is not None else Page(page.offset, MAX_PAGE)
        active_since = utcnow() - self._handoff_idle
        return await self._sessions.open_handoffs(story.id, active_since, bounded)

    async def conversation(
        self, *, principal: Principal, story_id: str, session_id: str
    ) -> DeskConversation:
        """The session's lines, oldest first: the turns the history stored and those
        still waiting to be written; NotFound when it has neither them nor a handoff."""
        story_id = (await self._covered(principal, story_id)).id
        stored = await self._sessions.load(story_id, session_id)
        handoff = open_handoff(stored.state, utcnow(), self._handoff_idle)
        turns = await self._turns.stored_transcript(story_id, session_id)
        known = {turn.id for turn in turns}
        turns += [t for t in await self._recorder.queued(story_id, session_id) if t.id not in known]
        if handoff is None and not turns:
            raise NotFound(f"no conversation {session_id} in story {story_id}")
        entries = [entry for t in turns for entry in entries_of(t.id, t.turn)]
        return DeskConversation(handoff, entries)

    async def stream(self, *, principal: Principal, story_id: str, client: str) -> DeskStream:
        """A stream of the story's new lines (429 beyond the open streams' bounds)."""
        story = await self._covered(principal, story_id)
        return self._streams.open(principal.account_id, story.id, client)

    async def send(
        self, *, principal: Principal, story_id: str, session_id: str, text: str
    ) -> None:
        started = time.perf_counter()
        story = await self._covered(principal, story_id)
        now = utcnow()
        state = await self._change(
            story.id,
            session_id,
            lambda state, handoff: replace(state, handoff=replace(handoff, last_message_at=now)),
        )
        await self._changes.announce(
            HandoffMessageSent(principal.account_id, story.id, session_id, text)
        )
        assert state.handoff is not None, "_change keeps the handoff open"
        said = DeskTurn(state, state.handoff, text, now)
        await self._keep(principal, story, session_id, said, started)

    async def take_over(self, *, principal: Principal, story_id: str, session_id: str) -> None:
        """The caller has the conversation now (the list says who); the history keeps a
        note of it (a turn saying nothing to the user) and the desks hear it."""
        started = time.perf_counter()
        person = person_of(principal)
        story = await self._covered(principal, story_id)
        state = await self._change(
            story.id,
            session_id,
            lambda state, handoff: replace(state, handoff=replace(handoff, taken_by=person)),
        )
        assert state.handoff is not None, "_change keeps the handoff open"
        taken = DeskTurn(state, state.handoff, None, utcnow(), taken_over=True)
        await self._keep(principal, story, session_id, taken, started)

    async def give_back(self, *, principal: Principal, story_id: str, session_id: str) -> None:
        """The bot answers the session's next message; the user is told so (the story's
        `handoffReturnMessage`, through the session's channel), and the history and the
        desks have a note of it."""
        started = time.perf_counter()
        story = await self._covered(principal, story_id)
        ended: list[HandedOver] = []

        def end(state: SessionState, handoff: HandedOver) -> SessionState:
            ended.append(handoff)
            return replace(state, handoff=None)

        state = await self._change(story.id, session_id, end)
        told, now = story.settings.handoff_return_message, utcnow()
        await self._changes.announce(
            HandoffMessageSent(principal.account_id, story.id, session_id, told)
        )
        given = DeskTurn(state, ended[-1], told, now, given_back=True)
        await self._keep(principal, story, session_id, given, started)

    async def _keep(
        self,
        principal: Principal,
        story: StoryRecord,
        session_id: str,
        kept: DeskTurn,
        started: float,
    ) -> None:
        """The history records the desk's turn as the person's (when the story keeps a
        history, redacted as it says), and the desks hear its lines under the id the
        history stores it by; a take-over and a give-back change the list too."""
        account_id, person = principal.account_id, person_of(principal)
        turn, outcome = persons_message(
            story.id, story.settings, kept.state, kept.handoff, kept.text, kept.at
        )
        turn_id = self._recorder.answered(
            account_id=account_id,
            session_id=session_id,
            settings=story.settings,
            turn=turn,
            outcome=outcome,
            webhook=None,
            started=started,
            person=person,
            given_back=kept.given_back,
            taken_over=kept.taken_over,
        )
        record = TurnRecord(account_id, story.id, session_id, kept.at, "handoff",
                            fulfillment=kept.text or "", person=person,
                            given_back=kept.given_back, taken_over=kept.taken_over)  # fmt: skip
        lines = tuple(entries_of(turn_id or new_object_id(), record))
        list_changed = kept.given_back or kept.taken_over
        await self._changes.announce(
            DeskLinesAdded(account_id, story.id, session_id, lines, list_changed)
        )

    async def _covered(self, principal: Principal, story_id: str) -> StoryRecord:
        """The story, once it is known to be the caller's account's and covered by the
        caller's role (else NotFound, as another account's story is)."""
        story = await load_story(self._stories, principal.account_id, story_id)
        if not desk_covers(principal, story.id):
            raise NotFound(f"no story {story_id} on this desk")
        return story

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
            if await sessions.save(
                story_id, session_id, stored.version, state, kept, stored.replies
            ):
                return state
        raise Conflict("the session is being changed by too many messages at once; try again")
