"""A session handed to a person (engine/handoff.py): opened by a handoff item, silent
while open, given back once idle longer than the timeout."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot_api.domain.responses import Handoff, Text
from bot_api.engine.conversation import respond
from bot_api.engine.handoff import (
    after_answer,
    kept_for,
    open_handoff,
    persons_message,
    silent_turn,
)
from bot_api.engine.turn import HandedOver, SessionState, Turn, outcome_kind
from support.stories import interaction, story

CONNECTION = "c" * 24
NOON = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
IDLE = timedelta(minutes=30)

HUMAN = interaction(
    "human",
    "talk to a human",
    responses=[
        {"type": "text", "messages": ["A person will answer"]},
        {"type": "handoff", "connection": CONNECTION},
    ],
)
MODEL = story(HUMAN, interaction("hello", "hello there"))


def test_an_answer_with_a_handoff_item_opens_the_handoff() -> None:
    turn = Turn(query="talk to a human", now=NOON)
    state, outcome = respond(MODEL, SessionState(), turn)
    assert outcome.fulfillment == (Text("A person will answer"), Handoff(CONNECTION))

    state, outcome = after_answer(state, outcome, turn)

    assert state.handoff == HandedOver(CONNECTION, since=NOON, last_message_at=NOON)
    assert outcome.handoff == state.handoff


def test_the_handoff_keeps_the_user_s_name_and_channel_for_the_desk() -> None:
    turn = Turn(
        query="talk to a human",
        parameters={"default_source": "telegram"},
        now=NOON,
        user_name="Ana Souza",
    )
    state, _ = after_answer(*respond(MODEL, SessionState(), turn), turn)
    assert state.handoff is not None
    assert (state.handoff.user_name, state.handoff.source) == ("Ana Souza", "telegram")

    later = Turn(query="hello there", now=NOON + timedelta(minutes=1))
    kept, _ = silent_turn(MODEL, state, later, state.handoff)
    assert kept.handoff is not None and kept.handoff.user_name == "Ana Souza"
    renamed, _ = silent_turn(MODEL, state, replace(later, user_name="Ana S."), state.handoff)
    assert renamed.handoff is not None and renamed.handoff.user_name == "Ana S."


def test_an_answer_without_one_leaves_the_session_as_it_was() -> None:
    turn = Turn(query="hello there", now=NOON)
    state, outcome = respond(MODEL, SessionState(), turn)
    assert after_answer(state, outcome, turn) == (state, outcome)
    assert state.handoff is None


def test_while_open_a_turn_answers_nothing_and_keeps_the_handoff_alive() -> None:
    opened = HandedOver(CONNECTION, since=NOON, last_message_at=NOON)
    before = SessionState(parameters={"name": "Ada"}, handoff=opened)
    later = NOON + timedelta(minutes=5)
    turn = Turn(query="hello there", parameters={"default_source": "slack"}, now=later)

    state, outcome = silent_turn(MODEL, before, turn, opened)

    assert outcome.fulfillment == () and outcome.interaction is None
    assert outcome.parameters == {"name": "Ada", "default_source": "slack"}
    assert state.handoff == replace(opened, last_message_at=later) == outcome.handoff
    assert state.parameters == outcome.parameters


def test_a_handoff_idle_longer_than_the_timeout_is_given_back() -> None:
    opened = HandedOver(CONNECTION, since=NOON, last_message_at=NOON)
    state = SessionState(handoff=opened)
    assert open_handoff(state, NOON + IDLE, IDLE) == opened
    assert open_handoff(state, NOON + IDLE + timedelta(seconds=1), IDLE) is None
    assert open_handoff(SessionState(), NOON, IDLE) is None


def test_a_session_in_handoff_is_kept_as_long_as_the_handoff_may_last() -> None:
    ten_minutes = timedelta(minutes=10)
    opened = SessionState(handoff=HandedOver(CONNECTION, NOON, NOON))
    assert kept_for(opened, ten_minutes, IDLE) == IDLE
    assert kept_for(SessionState(), ten_minutes, IDLE) == ten_minutes
    assert kept_for(opened, timedelta(hours=1), IDLE) == timedelta(hours=1)


def test_the_history_files_a_turn_in_handoff_and_the_person_s_message_as_handoff() -> None:
    opened = HandedOver(CONNECTION, since=NOON, last_message_at=NOON)
    before = SessionState(parameters={"name": "Ada"}, handoff=opened)
    turn = Turn(query="hello there", now=NOON)
    _, silent = silent_turn(MODEL, before, turn, opened)
    assert outcome_kind(turn, silent) == "handoff"

    person, said = persons_message(MODEL.id, MODEL.settings, before, opened, "I'm Bob", NOON)
    assert (person.query, person.trigger, person.goto, person.now) == (None, None, None, NOON)
    assert said.fulfillment == (Text("I'm Bob"),) and said.parameters == {"name": "Ada"}
    assert outcome_kind(person, said) == "handoff"
    taken, says_nothing = persons_message(MODEL.id, MODEL.settings, before, opened, None, NOON)
    assert says_nothing.fulfillment == () and outcome_kind(taken, says_nothing) == "handoff"

    asked = Turn(query="talk to a human", now=NOON)
    _, opening = after_answer(*respond(MODEL, SessionState(), asked), asked)
    assert outcome_kind(asked, opening) == "matched"
