"""Conversation tests replayed (docs/tests.md): 500 test turns, and the most a story may
hold (MAX_TESTS_PER_STORY × MAX_TURNS_PER_TEST), on the generated 150 × 99 story, at the
defaults (the semantic stage on: stored phrase vectors, random stand-ins of the model's
size, and the real encoder for each message a clear lexical winner does not answer) and
lexical only, the median of ROUNDS. `python -m bench.conversation_tests`; make bench
writes its section. Goal: 500 turns in under 1 s."""

import random
import statistics
import time
from datetime import UTC, datetime
from typing import Any

from bench.matching import build
from bench.report import write_section
from bench.synthetic import queries, story_interactions
from bench.vectors import random_vectors
from bot_api.domain.conversation_tests import (
    MAX_TESTS_PER_STORY,
    MAX_TURNS_PER_TEST,
    ConversationTest,
    Expectation,
    ScriptedTurn,
    StoredTest,
)
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.engine.conversation import respond
from bot_api.engine.remembering import RememberingEncoder
from bot_api.engine.replay import replay
from bot_api.engine.semantic import Encoder
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import SessionState, Turn

ROUNDS = 5
INTERACTIONS = 150
PHRASES = 99
GOAL_SECONDS = 1.0


def suite(
    story: CompiledStory,
    interactions: list[dict[str, Any]],
    tests: int,
    turns: int,
    encoder: Encoder | None,
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
            scripted.append(ScriptedTurn(_answered(story, text, encoder), query=text))
        made.append(StoredTest(str(number), ConversationTest(f"test {number}", tuple(scripted))))
    return made


def _answered(story: CompiledStory, text: str, encoder: Encoder | None) -> Expectation:
    _, outcome = respond(story, SessionState(), Turn(query=text), encoder=encoder)
    if outcome.interaction is None:
        return Expectation(fallback=True)
    return Expectation(interaction=outcome.interaction.name)


def measure(
    story: CompiledStory, tests: list[StoredTest], encoder: Encoder | None
) -> tuple[float, float, int, int]:
    """The seconds of the first run (its messages encoded afresh) and the median of the
    next ROUNDS (their vectors remembered, as for the runs after each edit), the turns a
    run took and the tests that passed."""
    now = datetime.now(UTC)
    remembering = None if encoder is None else RememberingEncoder(encoder)
    seconds = []
    for _ in range(ROUNDS + 1):
        started = time.perf_counter()
        run = replay(story, tests, now, remembering)
        seconds.append(time.perf_counter() - started)
    return seconds[0], statistics.median(seconds[1:]), run.turns, run.passed


def table() -> str:
    interactions = story_interactions(INTERACTIONS, phrases=PHRASES)
    stages: list[tuple[str, CompiledStory, Encoder | None]] = [
        ("semantic (default)", build(interactions, random_vectors(interactions)), MiniLmEncoder()),
        ("lexical", build(interactions), None),
    ]
    rows = []
    five_hundred = []
    for stage, story, encoder in stages:
        for tests, turns in ((100, 5), (MAX_TESTS_PER_STORY, MAX_TURNS_PER_TEST)):
            made = suite(story, interactions, tests, turns, encoder)
            first, again, taken, passed = measure(story, made, encoder)
            if taken == 500:
                five_hundred.append(again)
            rows.append(
                f"| {stage} | {tests} × {turns} | {taken} | {passed} | {first:.3f} "
                f"| {again:.3f} | {taken / again:,.0f} |"
            )
    verdict = "met" if max(five_hundred) < GOAL_SECONDS else "NOT met"
    return "\n".join(
        [
            f"The generated {INTERACTIONS} × {PHRASES} story, one thread; each turn a reworded "
            "phrase expecting what the story answers, so every turn is taken. At the defaults "
            "the story holds phrase vectors (random stand-ins of the model's size) and each "
            "message a clear lexical winner does not answer is encoded by the real MiniLM. "
            "The first run encodes its messages; the runs after it (each edit's) find their "
            f"vectors remembered: the median of {ROUNDS} of them. Goal: 500 turns in under "
            f"{GOAL_SECONDS:g} s after an edit: {verdict}.",
            "",
            "| stage | tests × turns | turns taken | tests passed | first run (s) "
            "| after an edit (s) | turns/s |",
            "|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


def main() -> None:
    body = table()
    write_section("conversation-tests", "Conversation tests (make bench)", body)
    print(body)


if __name__ == "__main__":
    main()
