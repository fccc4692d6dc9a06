"""Conversation tests replayed against a compiled story: each in a session of its own,
stopping at its first failing turn, with the same answer on every run."""

from dataclasses import replace
from datetime import UTC, datetime

from bot_api.domain.conversation_tests import (
    ConversationTest,
    Difference,
    Expectation,
    ScriptedTurn,
    StoredTest,
)
from bot_api.engine.replay import replay
from support import languages
from support.stories import interaction, story

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)

PIZZA = story(
    interaction(
        "order",
        "I want a {{size:size}} pizza",
        "a pizza please",
        parameters=[{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
        responses=[{"type": "text", "messages": ["One {{size}} pizza!", "A {{size}} one, sure"]}],
        triggers=["order"],
    ),
    interaction("drinks", "drinks", "something to drink", responses=[]),
    parents={"drinks": "order"},
    entities={"size": [["large", "big"], "small"]},
)


def turn(query: str | None = None, trigger: str | None = None, **expect: object) -> ScriptedTurn:
    return ScriptedTurn(Expectation(**expect), query=query, trigger=trigger)  # type: ignore[arg-type]


def conversation(test_id: str, *turns: ScriptedTurn) -> StoredTest:
    return StoredTest(test_id, ConversationTest(f"test {test_id}", turns))


def test_a_passing_conversation_through_slot_filling_and_a_context() -> None:
    run = replay(
        PIZZA,
        [
            conversation(
                "t1",
                turn("a pizza please", interaction="Order", incomplete=True, text="Which size?"),
                turn(
                    "big", parameters={"size": "large"}, incomplete=False, text="One large pizza!"
                ),
                turn("something to drink", interaction="Drinks", contexts=("Order",)),
            )
        ],
        NOW,
    )
    assert [(r.passed, r.turn, r.difference) for r in run.results] == [(True, None, None)]
    assert run.turns == 3 and run.ran_at == NOW


def test_a_test_stops_at_its_first_failing_turn_and_says_where() -> None:
    run = replay(
        PIZZA,
        [
            conversation(
                "t1",
                turn("I want a small pizza", interaction="Order"),
                turn("the weather today", interaction="Drinks"),
                turn("drinks", interaction="Drinks"),
            )
        ],
        NOW,
    )
    (result,) = run.results
    assert not result.passed and result.turn == 1
    assert result.difference == Difference("interaction", "Drinks", "Fallback")
    assert run.turns == 2


def test_each_test_starts_from_a_fresh_session() -> None:
    """A context the first test opened is not there for the second: "drinks" only follows
    Order, so without it nothing matches."""
    run = replay(
        PIZZA,
        [
            conversation("t1", turn("I want a big pizza", interaction="Order")),
            conversation("t2", turn("drinks", fallback=True)),
        ],
        NOW,
    )
    assert [r.passed for r in run.results] == [True, True]


def test_a_trigger_and_its_parameters_start_an_interaction() -> None:
    scripted = ScriptedTurn(
        Expectation(interaction="Order", parameters={"size": "small"}, text="One small pizza!"),
        trigger="order",
        parameters={"size": "small"},
    )
    run = replay(PIZZA, [conversation("t1", scripted)], NOW)
    assert run.results[0].passed, run.results[0].difference


def test_the_first_message_of_a_text_block_answers_on_every_run() -> None:
    tests = [conversation("t1", turn("I want a big pizza", text="One large pizza!"))]
    assert all(replay(PIZZA, tests, NOW).results[0].passed for _ in range(20))


HOURS = interaction(
    "hours",
    *languages.HOURS["userSays"],
    responses=languages.HOURS["responses"],
    translations=languages.HOURS["translations"],
)
SHOP = story(HOURS, languages=("de", "fr"))


def said_in(query: str, language: str | None, **expect: object) -> ScriptedTurn:
    return replace(turn(query, **expect), language=language)


def test_a_turn_is_said_in_its_language_and_the_answer_s_language_is_checked() -> None:
    """The language is sent as `default_language`: the turn is read with that language's
    phrases and answered with its responses; a variant without responses answers in the
    default language, which the expectation sees."""
    run = replay(
        SHOP,
        [
            conversation(
                "german",
                said_in("wann habt ihr geöffnet", "de", text="9 bis 17 Uhr.", answered_in="de"),
                said_in("wann habt ihr geöffnet", None, answered_in="de"),
            ),
            conversation(
                "french",
                said_in("quand êtes-vous ouverts", "fr", interaction="Hours", answered_in="fr"),
            ),
            conversation("default", said_in("when are you open", None, answered_in="en")),
        ],
        NOW,
    )
    assert [(r.name, r.passed, r.difference) for r in run.results] == [
        ("test german", True, None),
        ("test french", False, Difference("answeredIn", "fr", "en")),
        ("test default", True, None),
    ]


def test_a_story_of_one_language_answers_in_its_default_and_a_lost_language_fails() -> None:
    plain = replay(PIZZA, [conversation("t1", turn("drinks", answered_in="en"))], NOW)
    assert plain.results[0].passed
    lost = replay(
        SHOP.edited(settings=replace(SHOP.settings, languages=("fr",))),
        [conversation("t1", said_in("wann habt ihr geöffnet", "de", interaction="Hours"))],
        NOW,
    )
    assert lost.results[0].difference == Difference("language", "de", "en")
    assert lost.turns == 1
