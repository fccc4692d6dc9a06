"""The misses inbox's clustering alone: 10,000 unresolved turns (the inbox's bound,
storage/inbox.py), with sentence vectors, without, and the worst case where no two
messages are alike; medians of several runs (the goal: within 1 s)."""

import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import numpy as np

from bot_api.engine.clustering import Miss, clusters
from bot_api.storage.inbox import MAX_INBOX_TURNS

RUNS = 5
INTENTS = 300
DIMENSIONS = 384
WORDS = [
    "order",
    "refund",
    "open",
    "hours",
    "deliver",
    "pizza",
    "vegan",
    "card",
    "cancel",
    "plan",
    "track",
    "parcel",
    "gift",
]
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _typo(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text))
    return text[:at] + text[at + 1 :]


def with_vectors(rng: random.Random, distinct: bool) -> list[Miss]:
    """Turns of `INTENTS` intents, each message its own text and a vector near its
    intent's (cosine about 0.8); `distinct`: every message an intent of its own."""
    intents = MAX_INBOX_TURNS if distinct else INTENTS
    centres = _unit(np.random.default_rng(7).standard_normal((intents, DIMENSIONS)))
    noise = np.random.default_rng(8).standard_normal((MAX_INBOX_TURNS, DIMENSIONS)) * 0.035
    of = [n if distinct else rng.randrange(intents) for n in range(MAX_INBOX_TURNS)]
    vectors = _unit(centres[of] + noise)
    return [
        Miss(
            f"t{n}",
            f"message {n} about {WORDS[of[n] % len(WORDS)]}",
            _at(n),
            tuple(vectors[n].tolist()),
        )
        for n in range(MAX_INBOX_TURNS)
    ]


def lexical(rng: random.Random, distinct: bool) -> list[Miss]:
    """Turns without vectors: `INTENTS` sentences said again with typos, or (`distinct`)
    every message a sentence of its own."""
    count = MAX_INBOX_TURNS if distinct else INTENTS
    sentences = [" ".join(rng.choices(WORDS, k=6)) + f" {n}" for n in range(count)]
    return [
        Miss(f"t{n}", _typo(sentences[n if distinct else rng.randrange(count)], rng), _at(n))
        for n in range(MAX_INBOX_TURNS)
    ]


def _at(n: int) -> datetime:
    return T0 + timedelta(seconds=n)


def _median_seconds(misses: list[Miss]) -> tuple[float, int]:
    times, found = [], 0
    for _ in range(RUNS):
        started = time.perf_counter()
        found = len(clusters(misses))
        times.append(time.perf_counter() - started)
    return statistics.median(times), found


def table() -> str:
    rng = random.Random(18)
    cases: list[tuple[str, Callable[[random.Random, bool], list[Miss]], bool]] = [
        (f"vectors, {INTENTS} intents", with_vectors, False),
        (f"words only, {INTENTS} sentences with typos", lexical, False),
        ("vectors, no two alike (worst case)", with_vectors, True),
        ("words only, no two alike (worst case)", lexical, True),
    ]
    rows = []
    for name, make, distinct in cases:
        seconds, found = _median_seconds(make(rng, distinct))
        rows.append(f"| {name} | {MAX_INBOX_TURNS} | {found} | {seconds * 1000:.0f} ms |")
    return (
        f"`bot_api.engine.clustering.clusters` on {MAX_INBOX_TURNS} unresolved turns "
        f"(generated: bench/clustering.py), median of {RUNS} runs; goal ≤ 1 s.\n\n"
        "| turns | count | clusters | clustering |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


if __name__ == "__main__":
    print(table())
