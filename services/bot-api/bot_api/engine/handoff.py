"""Handing a conversation to a person (docs/api.md "Handoffs").

A turn whose interaction answers with a handoff block puts the session in handoff. While
it lasts the engine does not run: the turn answers nothing (the user's message goes to
the handoff connection, query/service.py), until the person gives the
conversation back or it stays idle longer than the handoff idle timeout; then the next
message is the bot's again.
"""

from dataclasses import replace
from datetime import datetime, timedelta

from bot_api.domain.responses import Text, handoff_of
from bot_api.domain.settings import Settings
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import HandedOver, Outcome, OutcomeContext, SessionState, Turn


def open_handoff(state: SessionState, now: datetime, idle: timedelta) -> HandedOver | None:
    """The session's handoff if it is still open at `now` (idle no longer than `idle`)."""
    handoff = state.handoff
    if handoff is None or now - handoff.last_message_at > idle:
        return None
    return handoff


def after_answer(state: SessionState, outcome: Outcome, turn: Turn) -> tuple[SessionState, Outcome]:
    """The state and outcome of a turn the bot answered: in handoff from now on when the
    answer holds a handoff item (with the user's name and channel, for the desk)."""
    now = turn.now
    item = handoff_of(outcome.fulfillment)
    if item is None:
        return state, outcome
    source = outcome.parameters.get("default_source")
    handoff = HandedOver(
        item.connection,
        since=now,
        last_message_at=now,
        user_name=turn.user_name,
        source=source if isinstance(source, str) else None,
    )
    return replace(state, handoff=handoff), replace(outcome, handoff=handoff)


def silent_turn(
    story: CompiledStory, state: SessionState, turn: Turn, handoff: HandedOver
) -> tuple[SessionState, Outcome]:
    """A turn while a person has the conversation: nothing answered, the contexts as they
    were, the turn's parameters kept (the person's side receives them)."""
    parameters = {**state.parameters, **turn.parameters}
    still_open = replace(
        handoff, last_message_at=turn.now, user_name=turn.user_name or handoff.user_name
    )
    interactions = story.interactions
    outcome = Outcome(
        story_id=story.id,
        interaction=None,
        score=0.0,
        threshold=story.settings.confidence if turn.confidence is None else turn.confidence,
        lifespan=state.contexts[0].lifespan if state.contexts else 0,
        incomplete=False,
        parameters=parameters,
        contexts=tuple(
            OutcomeContext(c.id, interactions[c.id].name, c.lifespan)
            for c in state.contexts
            if c.id in interactions
        ),
        fulfillment=(),
        handoff=still_open,
    )
    return replace(state, parameters=parameters, handoff=still_open), outcome


def kept_for(state: SessionState, session_idle: timedelta, handoff_idle: timedelta) -> timedelta:
    """How long a session outlives its last message: the handoff's idle timeout while in
    one, so a person's conversation is not forgotten before it would be given back."""
    return session_idle if state.handoff is None else max(session_idle, handoff_idle)


def persons_message(
    story_id: str,
    settings: Settings,
    state: SessionState,
    handoff: HandedOver,
    text: str | None,
    now: datetime,
) -> tuple[Turn, Outcome]:
    """A person's message as the history keeps it: a turn of the bot's at `now`, with no
    input from the user, saying `text`. The conversation given back is recorded so too,
    saying the story's `handoff_return_message`, and the conversation taken over saying
    nothing (`text` None)."""
    turn = Turn(now=now)
    outcome = Outcome(
        story_id=story_id,
        interaction=None,
        score=0.0,
        threshold=settings.confidence,
        lifespan=0,
        incomplete=False,
        parameters=state.parameters,
        contexts=(),
        fulfillment=() if text is None else (Text(text),),
        handoff=handoff,
    )
    return turn, outcome
