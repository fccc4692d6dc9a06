"""The comparison of a turn's answer with what a conversation test expects: the first
field not met, with what was expected and what came back (docs/tests.md)."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from marshmallow import ValidationError

from bot_api.domain.conversation_tests import (
    Answer,
    ConversationTest,
    Difference,
    Expectation,
    ScriptedTurn,
    TestResult,
    TestRun,
    first_difference,
    unspoken,
    unspoken_turn,
)
from bot_api.story_tests.repository import written_test
from bot_api.story_tests.schemas import TestWriteSchema

ORDER = Answer(
    interaction="Order",
    fallback=False,
    parameters={"size": "large", "crust": "thin"},
    incomplete=False,
    contexts=("Order", "Welcome"),
    text="One large pizza coming up!",
    answered_in="en",
)


def test_an_answer_meeting_every_field_has_no_difference() -> None:
    expect = Expectation(
        interaction="Order",
        fallback=False,
        parameters={"size": "large"},
        incomplete=False,
        contexts=("Welcome", "Order"),
        text="One large pizza coming up!",
        text_contains="large pizza",
        answered_in="en",
    )
    assert first_difference(expect, ORDER) is None


def test_each_field_not_met_is_told_with_what_was_expected_and_what_came() -> None:
    cases = [
        (Expectation(interaction="Drinks"), Difference("interaction", "Drinks", "Order")),
        (Expectation(fallback=True), Difference("fallback", True, False)),
        (Expectation(incomplete=True), Difference("incomplete", True, False)),
        (Expectation(contexts=("Order",)), Difference("contexts", ["Order"], ["Order", "Welcome"])),
        (Expectation(text="One pizza"), Difference("text", "One pizza", ORDER.text)),
        (Expectation(text_contains="small"), Difference("textContains", "small", ORDER.text)),
        (Expectation(answered_in="de"), Difference("answeredIn", "de", "en")),
    ]
    for expect, difference in cases:
        assert first_difference(expect, ORDER) == difference


def test_parameters_are_a_subset_and_only_the_wrong_ones_are_told() -> None:
    expect = Expectation(parameters={"size": "small", "crust": "thin", "sauce": "tomato"})
    assert first_difference(expect, ORDER) == Difference(
        "parameters", {"size": "small", "sauce": "tomato"}, {"size": "large"}
    )
    assert first_difference(Expectation(parameters={"crust": "thin"}), ORDER) is None


def test_a_parameter_expected_null_is_not_met_by_a_missing_one() -> None:
    difference = first_difference(Expectation(parameters={"sauce": None}), ORDER)
    assert difference == Difference("parameters", {"sauce": None}, {})


def test_structured_parameters_are_compared_as_values() -> None:
    """A sys.number 2, a sys.date-time range, a list: equal by structure, numbers by
    value, but a boolean is never a number and a text never its digits."""
    week = {"start": "2026-11-30T00:00:00+01:00", "end": "2026-12-07T00:00:00+01:00"}
    answer = replace(ORDER, parameters={"guests": 2, "when": week, "toppings": ["ham", "olive"]})

    def met(**expected: object) -> bool:
        return first_difference(Expectation(parameters=expected), answer) is None

    assert met(guests=2, when=dict(week), toppings=["ham", "olive"])
    assert met(guests=2.0)
    assert not met(guests="2")
    assert not met(when={"start": week["start"]})
    assert not met(toppings=["olive", "ham"])
    assert not met(toppings=["ham"])
    truthy = replace(ORDER, parameters={"vegan": True, "count": 1})
    assert first_difference(Expectation(parameters={"vegan": 1}), truthy) is not None
    assert first_difference(Expectation(parameters={"count": True}), truthy) is not None
    assert first_difference(Expectation(parameters={"vegan": True, "count": 1}), truthy) is None


def test_an_expectation_holds_structured_values_and_refuses_unstorable_ones() -> None:
    schema = TestWriteSchema()
    week = {"start": "2026-11-30", "end": "2026-12-07"}
    test = schema.load(
        {
            "name": "booking",
            "turns": [{"query": "next week", "expect": {"parameters": {"n": 2, "when": week}}}],
        }
    )
    assert test.turns[0].expect.parameters == {"n": 2, "when": week}
    assert written_test(test)["turns"][0]["expect"]["parameters"] == {"n": 2, "when": week}
    for bad in ({"$gt": 1}, {"a.b": 1}, [[[[[1]]]]], list(range(101))):
        body = {"name": "t", "turns": [{"query": "hi", "expect": {"parameters": {"p": bad}}}]}
        with pytest.raises(ValidationError):
            schema.load(body)


def test_the_first_field_in_the_api_s_order_is_the_one_told() -> None:
    expect = Expectation(interaction="Drinks", text="nothing", incomplete=True)
    assert first_difference(expect, ORDER) == Difference("interaction", "Drinks", "Order")


def test_a_run_marks_broken_what_passed_before_and_fails_now() -> None:
    at = datetime(2026, 3, 1, tzinfo=UTC)
    before = TestRun(
        (TestResult("t1", "a", True), TestResult("t2", "b", False), TestResult("t3", "c", True)),
        3,
        at,
    )
    now = TestRun(
        (TestResult("t1", "a", False), TestResult("t2", "b", False), TestResult("t3", "c", True)),
        3,
        at,
    )
    marked = now.after(before)
    assert [r.broken for r in marked.results] == [True, False, False]
    assert (marked.passed, marked.failed) == (1, 2)
    assert now.after(None) == now
    assert replace(marked.results[0], broken=False) == now.results[0]


def test_a_turn_s_language_is_sent_as_its_default_language_beside_its_parameters() -> None:
    german = ScriptedTurn(
        Expectation("Order"), query="eine Pizza", parameters={"n": 2}, language="de"
    )
    assert german.sent_parameters() == {"n": 2, "default_language": "de"}
    plain = ScriptedTurn(Expectation("Order"), query="a pizza", parameters={"n": 2})
    assert plain.sent_parameters() == {"n": 2}


def test_the_languages_a_story_does_not_speak_are_found_at_their_places() -> None:
    test = ConversationTest(
        "several",
        (
            ScriptedTurn(Expectation("Order", answered_in="de"), query="eine Pizza", language="de"),
            ScriptedTurn(Expectation("Order", answered_in="it"), query="una pizza", language="it"),
            ScriptedTurn(Expectation("Order", answered_in="en"), query="a pizza"),
        ),
    )
    spoken = ("en", "de")
    assert unspoken(test, spoken) == [
        (("turns", 1, "language"), "'it' is not a language of this story: it speaks en, de."),
        (
            ("turns", 1, "expect", "answeredIn"),
            "'it' is not a language of this story: it speaks en, de.",
        ),
    ]
    assert unspoken(test, ("en", "de", "it")) == []
    assert unspoken_turn(test.turns[0], spoken) is None
    assert unspoken_turn(test.turns[1], spoken) == Difference("language", "it", "en")
    assert unspoken_turn(test.turns[2], ("fr",)) is None


def test_a_turn_s_language_and_answer_s_are_read_as_story_languages_are() -> None:
    schema = TestWriteSchema()
    body = {
        "name": "german",
        "turns": [{"query": "eine Pizza", "language": "German", "expect": {"answeredIn": "de-AT"}}],
    }
    test = schema.load(body)
    assert (test.turns[0].language, test.turns[0].expect.answered_in) == ("de", "de")
    written = written_test(test)["turns"][0]
    assert (written["language"], written["expect"]) == ("de", {"answeredIn": "de"})
    assert (
        "language"
        not in written_test(
            schema.load({**body, "turns": [{"query": "x", "expect": {"fallback": True}}]})
        )["turns"][0]
    )
    bad = (
        {"query": "x", "language": "klingon", "expect": {"fallback": True}},
        {"query": "x", "expect": {"answeredIn": "xx"}},
        {"query": "x", "language": "", "expect": {"fallback": True}},
        {
            "query": "x",
            "language": "de",
            "parameters": {"default_language": "fr"},
            "expect": {"fallback": True},
        },
    )
    for turn in bad:
        with pytest.raises(ValidationError) as refused:
            schema.load({"name": "t", "turns": [turn]})
        assert refused.value.messages["turns"][0], turn  # type: ignore[index]
