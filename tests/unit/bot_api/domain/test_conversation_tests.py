"""The comparison of a turn's answer with what a conversation test expects: the first
field not met, with what was expected and what came back (docs/tests.md)."""

from dataclasses import replace
from datetime import UTC, datetime

from bot_api.domain.conversation_tests import (
    Answer,
    Difference,
    Expectation,
    TestResult,
    TestRun,
    first_difference,
)

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
