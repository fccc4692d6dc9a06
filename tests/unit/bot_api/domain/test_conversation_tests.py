"""The comparison of a turn's answer with what a conversation test expects: the first
field not met, with what was expected and what came back (docs/tests.md)."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from marshmallow import ValidationError

from bot_api.domain.conversation_tests import (
    Answer,
    Difference,
    Expectation,
    TestResult,
    TestRun,
    first_difference,
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
