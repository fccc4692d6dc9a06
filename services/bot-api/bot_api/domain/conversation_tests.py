"""Conversation tests (docs/tests.md): a named list of turns, each a message or a trigger
and what must come back, kept per story so an edit that breaks a conversation is seen at
once.

Values only: the engine replays them (`engine/replay.py`), storage keeps them, the API
loads and dumps them. An expectation names interactions by *name*, never by id, so a
test means the same in an exported document and in the story it is imported into.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from bot_api.domain.errors import Path

MAX_TESTS_PER_STORY = 100
"""Tests a story may hold. With `MAX_TURNS_PER_TEST` it bounds a run, which every edit
starts, at 2,000 turns: 0.67 s of one worker thread on the 150 × 99 story (500 turns in
0.17 s; docs/benchmarks.md "Conversation tests"), and enough for a suite that covers each
interaction of a large story once or twice."""
MAX_TURNS_PER_TEST = 20
"""Turns one test may take: a conversation through slot filling and two levels of
contexts takes under ten; twenty leaves room and keeps a run bounded (above)."""


@dataclass(frozen=True)
class Expectation:
    """What one turn must answer; a field left None is not checked."""

    interaction: str | None = None
    """The name of the interaction that answers."""
    fallback: bool | None = None
    """True: the story's fallback answered (or nothing matched)."""
    parameters: Mapping[str, Any] | None = None
    """Each must have this value (`same_value`: a number, an object, a list as well as
    a text); other parameters may be there too."""
    incomplete: bool | None = None
    """True: the interaction is still asking for a required parameter."""
    contexts: tuple[str, ...] | None = None
    """The names of the interactions whose contexts are active after the turn, exactly
    (in any order)."""
    text: str | None = None
    """The answer's texts, joined by a new line, are exactly this."""
    text_contains: str | None = None
    """The answer's texts, joined by a new line, contain this."""
    answered_in: str | None = None
    """The ISO 639-1 code of the language the answer is in (`result.answeredIn`, the
    story's default in a story of one language: docs/languages.md)."""


@dataclass(frozen=True)
class ScriptedTurn:
    """One turn of a test: exactly one of `query` and `trigger`."""

    expect: Expectation
    query: str | None = None
    trigger: str | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    language: str | None = None
    """The ISO 639-1 code of the language the user says it in, one the story speaks: sent
    as `parameters.default_language`, as a client names the user's language."""

    def sent_parameters(self) -> Mapping[str, Any]:
        """The parameters the turn is sent with: its own, and its language."""
        if self.language is None:
            return self.parameters
        return {**self.parameters, "default_language": self.language}


@dataclass(frozen=True)
class ConversationTest:
    name: str
    turns: tuple[ScriptedTurn, ...]


@dataclass(frozen=True)
class StoredTest:
    """A test of a story and its id."""

    id: str
    test: ConversationTest


@dataclass(frozen=True)
class Answer:
    """What a turn answered, in the terms an expectation checks."""

    interaction: str | None
    """The answering interaction's name (None: nothing matched)."""
    fallback: bool
    parameters: Mapping[str, Any]
    incomplete: bool
    contexts: tuple[str, ...]
    text: str
    answered_in: str
    """The ISO 639-1 code of the answer's language."""


@dataclass(frozen=True)
class Difference:
    """The first field of an expectation the answer does not meet."""

    field: str
    expected: Any
    got: Any


def same_value(expected: Any, got: Any) -> bool:
    """Structurally equal JSON values: objects with the same keys and equal values, lists
    of equal items in order, numbers by value (2 is 2.0) but never a boolean for a number
    (Python's `True == 1`), texts exactly."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return expected == got
    if isinstance(expected, Mapping) and isinstance(got, Mapping):
        return expected.keys() == got.keys() and all(
            same_value(value, got[key]) for key, value in expected.items()
        )
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        return len(expected) == len(got) and all(map(same_value, expected, got))
    return type(expected) is type(got) and expected == got


def first_difference(expect: Expectation, answer: Answer) -> Difference | None:
    """The first of the expectation's fields (in the order the API lists them) that the
    answer does not meet; None when it meets them all. For parameters, the wrong ones
    only, and what the answer had of them (a missing one is absent from `got`)."""
    if expect.interaction is not None and answer.interaction != expect.interaction:
        return Difference("interaction", expect.interaction, answer.interaction)
    if expect.fallback is not None and answer.fallback != expect.fallback:
        return Difference("fallback", expect.fallback, answer.fallback)
    if expect.parameters is not None:
        wrong = {
            name: value
            for name, value in expect.parameters.items()
            if name not in answer.parameters or not same_value(value, answer.parameters[name])
        }
        if wrong:
            got = {name: answer.parameters[name] for name in wrong if name in answer.parameters}
            return Difference("parameters", dict(wrong), got)
    if expect.incomplete is not None and answer.incomplete != expect.incomplete:
        return Difference("incomplete", expect.incomplete, answer.incomplete)
    if expect.contexts is not None and sorted(answer.contexts) != sorted(expect.contexts):
        return Difference("contexts", list(expect.contexts), list(answer.contexts))
    if expect.text is not None and answer.text != expect.text:
        return Difference("text", expect.text, answer.text)
    if expect.text_contains is not None and expect.text_contains not in answer.text:
        return Difference("textContains", expect.text_contains, answer.text)
    if expect.answered_in is not None and answer.answered_in != expect.answered_in:
        return Difference("answeredIn", expect.answered_in, answer.answered_in)
    return None


def unspoken_turn(turn: ScriptedTurn, spoken: Sequence[str]) -> Difference | None:
    """A turn said in a language the story no longer speaks (an edit removed it) fails
    there: the story would read it in its default language (`spoken[0]`)."""
    if turn.language is None or turn.language in spoken:
        return None
    return Difference("language", turn.language, spoken[0])


def unspoken(test: ConversationTest, spoken: Sequence[str]) -> list[tuple[Path, str]]:
    """Each place of the test naming a language the story does not speak (`spoken`, its
    default first), with why: such a turn would be read in the default language, or
    such an answer could never be, whatever the test says."""
    found: list[tuple[Path, str]] = []
    for index, turn in enumerate(test.turns):
        named: tuple[tuple[Path, str | None], ...] = (
            (("language",), turn.language),
            (("expect", "answeredIn"), turn.expect.answered_in),
        )
        for place, code in named:
            if code is not None and code not in spoken:
                found.append(
                    (
                        ("turns", index, *place),
                        f"{code!r} is not a language of this story: it speaks {', '.join(spoken)}.",
                    )
                )
    return found


@dataclass(frozen=True)
class TestResult:
    """How one test went: where it failed first, if it did."""

    __test__ = False  # a domain value, not a pytest class

    id: str
    name: str
    passed: bool
    turn: int | None = None
    """The index of the first turn that failed."""
    difference: Difference | None = None
    broken: bool = False
    """It passed in the run before and fails in this one: what the last edit broke."""


@dataclass(frozen=True)
class TestRun:
    """The results of running a story's tests, in the tests' order."""

    __test__ = False

    results: tuple[TestResult, ...]
    turns: int
    """Turns taken in all."""
    ran_at: datetime

    def after(self, previous: "TestRun | None") -> "TestRun":
        """This run with the tests that passed in `previous` and fail now marked broken."""
        if previous is None:
            return self
        passed_before = {r.id for r in previous.results if r.passed}
        results = tuple(
            replace(r, broken=not r.passed and r.id in passed_before) for r in self.results
        )
        return replace(self, results=results)

    @classmethod
    def joined(cls, runs: Sequence["TestRun"], ran_at: datetime) -> "TestRun":
        """One run of the results of `runs`, in their order."""
        return cls(
            tuple(r for run in runs for r in run.results), sum(run.turns for run in runs), ran_at
        )

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.passed)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    def failing(self) -> Sequence[TestResult]:
        return [r for r in self.results if not r.passed]
