"""A conversation's state as the sessions collection stores it."""

from bot_api.engine.conversation import respond
from bot_api.engine.turn import ActiveContext, Pending, SessionState, Turn
from bot_api.query.repository import state_from_document, state_to_document
from support.stories import interaction, story


def test_a_state_survives_a_round_trip_through_its_document() -> None:
    model = story(
        interaction(
            "order",
            "I would like to order a pizza",
            parameters=[{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
        ),
        entities={"size": ["large"]},
    )
    state, _ = respond(
        model, SessionState(), Turn(query="I would like to order a pizza", parameters={"n": 2})
    )
    assert state.pending == Pending("order", "size")
    assert state_from_document(state_to_document(state)) == state


def test_the_document_names_its_fields_as_the_collection_stores_them() -> None:
    state = SessionState((ActiveContext("a", 2),), {"x": "1"}, Pending("b", "size", 1), {"x": "a"})
    assert state_to_document(state) == {
        "contexts": [{"id": "a", "lifespan": 2}],
        "parameters": {"x": "1"},
        "pending": {"interactionId": "b", "alias": "size", "failures": 1},
        "collectedBy": {"x": "a"},
    }


def test_a_document_stored_before_collectedBy_existed_still_reads() -> None:
    document = {"contexts": [], "parameters": {"x": "1"}, "pending": None}
    assert state_from_document(document) == SessionState(parameters={"x": "1"})
