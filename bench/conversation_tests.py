"""Conversation tests replayed (docs/tests.md): 500 test turns, and the most a story may
hold (MAX_TESTS_PER_STORY × MAX_TURNS_PER_TEST), on the generated 150 × 99 story, lexical
stage, the median of ROUNDS. `python -m bench.conversation_tests`; make bench writes its
section. Goal: 500 turns in under 1 s."""

import random
import statistics
import time
from datetime import UTC, datetime
from typing import Any

from bench.matching import build
from bench.report import write_section
from bench.synthetic import queries, story_interactions
from bot_api.domain.conversation_tests import (
    MAX_TESTS_PER_STORY,
    MAX_TURNS_PER_TEST,
    ConversationTest,
    Expectation,
    ScriptedTurn,
    StoredTest,
)
from bot_api.engine.conversation import respond
from bot_api.engine.replay import replay
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import SessionState, Turn

ROUNDS = 5
INTERACTIONS = 150
PHRASES = 99
GOAL_SECONDS = 1.0


def suite(
    story: CompiledStory, interactions: list[dict[str, Any]], tests: int, turns: int
) -> list[StoredTest]:
    """`tests` tests of `turns` turns: reworded phrases of random interactions (bench/
    synthetic.py), each expecting what the story answers to it (as a test saved from the
    console's chat does), so every turn of every test is taken."""
    rng = random.Random(5)
    made = []
    for number in range(tests):
        scripted = []
        for _ in range(turns):
            target = interactions[rng.randrange(len(interactions))]
            (text,) = queries([target], 1, seed=rng.randrange(10**6))
            scripted.append(ScriptedTurn(_answered(story, text), query=text))
        made.append(StoredTest(str(number), ConversationTest(f"test {number}", tuple(scripted))))
    return made


def _answered(story: CompiledStory, text: str) -> Expectation:
    _, outcome = respond(story, SessionState(), Turn(query=text))
    if outcome.interaction is None:
        return Expectation(fallback=True)
    return Expectation(interaction=outcome.interaction.name)


def measure(story: CompiledStory, tests: list[StoredTest]) -> tuple[float, int, int]:
    """The median seconds of a run, the turns it took and the tests that passed."""
    now = datetime.now(UTC)
    seconds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        run = replay(story, tests, now)
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), run.turns, run.passed


def table() -> str:
    interactions = story_interactions(INTERACTIONS, phrases=PHRASES)
    story = build(interactions)
    rows = []
    for tests, turns in ((100, 5), (MAX_TESTS_PER_STORY, MAX_TURNS_PER_TEST)):
        seconds, taken, passed = measure(story, suite(story, interactions, tests, turns))
        rate = taken / seconds
        rows.append(f"| {tests} × {turns} | {taken} | {passed} | {seconds:.3f} | {rate:,.0f} |")
    five_hundred = float(rows[0].split("|")[4])
    verdict = "met" if five_hundred < GOAL_SECONDS else "NOT met"
    return "\n".join(
        [
            f"The generated {INTERACTIONS} × {PHRASES} story, lexical stage, one thread; each "
            "turn a reworded phrase expecting what the story answers, so every turn is taken. "
            f"Median of {ROUNDS} runs. Goal: 500 turns in under {GOAL_SECONDS:g} s: {verdict}.",
            "",
            "| tests × turns | turns taken | tests passed | seconds | turns/s |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )


def main() -> None:
    body = table()
    write_section("conversation-tests", "Conversation tests (make bench)", body)
    print(body)


if __name__ == "__main__":
    main()
