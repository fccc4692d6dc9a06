from datetime import UTC, datetime, timedelta

from bot_api.domain.history import AnsweredBy, Resolution, ScoredCandidate, TurnRecord
from bot_api.domain.knowledge import Generation
from bot_api.history.documents import turn_from_document, turn_to_document

AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_a_turn_comes_back_from_its_document_as_it_went_in() -> None:
    turn = TurnRecord(
        account_id="a1",
        story_id="s1",
        session_id="visitor-7",
        at=AT,
        outcome="matched",
        query="a large pizza",
        interaction=AnsweredBy("i1", "Order", "standard"),
        score=0.91,
        threshold=0.5,
        candidates=(ScoredCandidate("i1", "Order", 0.91), ScoredCandidate("i2", "Drinks", 0.2)),
        parameters={"size": "large"},
        contexts=("Order",),
        fulfillment="One large pizza coming up!",
        webhook="ok",
        latency_ms=4.5,
        default_source="web",
        default_language="en",
        vector=(0.25, -0.5),
        vector_model="all-MiniLM-L6-v2-int8",
        resolution=Resolution("a1", "assigned", AT, "i1"),
    )
    document = turn_to_document(turn, AT + timedelta(days=30))
    assert document["expiresAt"] == AT + timedelta(days=30)
    assert document["interaction"] == {"id": "i1", "name": "Order", "type": "standard"}
    assert len(document["vector"]) == 2 * 2  # float16 bytes
    assert turn_from_document(document) == turn


def test_a_fallback_turn_with_nothing_optional_round_trips() -> None:
    turn = TurnRecord("a1", "s1", "v", AT, "fallback", query="refund please")
    assert turn_from_document(turn_to_document(turn, AT)) == turn


def test_a_generated_knowledge_answers_tokens_and_time_round_trip() -> None:
    generation = Generation("generated", 0.8123, prompt_tokens=321, completion_tokens=17)
    turn = TurnRecord("a1", "s1", "v", AT, "knowledge", query="returns?", generation=generation)
    document = turn_to_document(turn, AT)
    assert document["generation"] == {
        "outcome": "generated",
        "seconds": 0.8123,
        "promptTokens": 321,
        "completionTokens": 17,
    }
    assert turn_from_document(document) == turn
    assert "generation" not in turn_to_document(TurnRecord("a1", "s1", "v", AT, "fallback"), AT)


def test_the_languages_of_a_turn_are_stored_only_when_it_has_them() -> None:
    """A story with further languages records the language read and the answer's; a story
    of one language's turns keep the document they had before languages existed."""
    turn = TurnRecord(
        "a1", "s1", "v", AT, "matched", query="Hallo", language="de", answered_in="en"
    )
    document = turn_to_document(turn, AT)
    assert (document["language"], document["answeredIn"]) == ("de", "en")
    assert turn_from_document(document) == turn
    one_language = turn_to_document(TurnRecord("a1", "s1", "v", AT, "matched"), AT)
    assert "language" not in one_language and "answeredIn" not in one_language
