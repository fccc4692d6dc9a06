"""Matching alone: index build time, memory and per-query latency on generated stories,
lexical only, and with the semantic stage (stored vectors: bench/vectors.py; the real
encoder for each message)."""

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bench.synthetic import queries, story_interactions
from bench.vectors import random_vectors
from bot_api.domain.interactions import default_interactions
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Context, Structure
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.engine.conversation import respond
from bot_api.engine.semantic import PhraseVectors
from bot_api.engine.story import CompiledStory
from bot_api.engine.text import tokens
from bot_api.engine.turn import SessionState, Turn
from bot_api.interactions.schemas import InteractionWriteSchema

SIZES = (150, 1000)
RUNS = 5
QUERIES = 1000


def build(
    interactions: list[dict[str, Any]], vectors: PhraseVectors | None = None
) -> CompiledStory:
    """A story of the welcome, the fallback and `interactions` (API bodies), all roots."""
    schema = InteractionWriteSchema()
    typed = [
        *(replace(d, id=d.kind) for d in default_interactions()),
        *(replace(schema.load(i), id=f"i{n}") for n, i in enumerate(interactions)),
    ]
    ids = tuple(i.id for i in typed)
    structure = Structure(ids, {i: Context(root=True) for i in ids}, frozenset(ids[:2]))
    model = CompiledStory.compile("bench", Settings(), structure, typed, [], vectors)
    model.index.search([["warm"]], lambda i: True)
    return model


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def retained_mib(make: Callable[[], object]) -> float:
    """What the value `make` builds holds, in MiB (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    kept = make()
    memory = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    del kept
    return memory


def turn_seconds(
    model: CompiledStory, asked: list[str], encoder: MiniLmEncoder | None = None
) -> list[float]:
    """Each message answered as a whole engine turn on a fresh session."""
    seconds = []
    for text in asked:
        started = time.perf_counter()
        respond(model, SessionState(), Turn(query=text), lambda o: o[0], encoder)
        seconds.append(time.perf_counter() - started)
    return seconds


def measure_semantic(size: int) -> dict[str, float]:
    """Compile from stored vectors (medians of RUNS), what the compiled story holds, and
    one run of whole turns with the real encoder."""
    interactions = story_interactions(size)
    vectors = random_vectors(interactions)
    asked = queries(interactions, QUERIES)
    memory = retained_mib(lambda: build(interactions, vectors))
    builds = []
    for _ in range(RUNS):
        gc.collect()
        started = time.perf_counter()
        model = build(interactions, vectors)
        builds.append(time.perf_counter() - started)
    turns = turn_seconds(model, asked, MiniLmEncoder())
    return {
        "build_ms": statistics.median(builds) * 1000,
        "memory_mib": memory,
        "turn_p50_ms": percentile(turns, 0.5) * 1000,
        "turn_p99_ms": percentile(turns, 0.99) * 1000,
    }


def measure(size: int) -> dict[str, float]:
    interactions = story_interactions(size)
    asked = queries(interactions, QUERIES)
    builds: list[float] = []
    p50s, p99s, turn_p50s, turn_p99s = [], [], [], []
    memory = retained_mib(lambda: build(interactions))
    for _ in range(RUNS):
        gc.collect()
        started = time.perf_counter()
        model = build(interactions)
        builds.append(time.perf_counter() - started)
        eligible = set(model.interactions)
        latencies = []
        for text in asked:
            started = time.perf_counter()
            model.index.search([tokens(text)], eligible.__contains__)
            latencies.append(time.perf_counter() - started)
        p50s.append(percentile(latencies, 0.5))
        p99s.append(percentile(latencies, 0.99))
        turns = turn_seconds(model, asked)
        turn_p50s.append(percentile(turns, 0.5))
        turn_p99s.append(percentile(turns, 0.99))
    return {
        "phrases": sum(len(i["userSays"]) for i in interactions),
        "build_ms": statistics.median(builds) * 1000,
        "memory_mib": memory,
        "p50_ms": statistics.median(p50s) * 1000,
        "p99_ms": statistics.median(p99s) * 1000,
        "turn_p50_ms": statistics.median(turn_p50s) * 1000,
        "turn_p99_ms": statistics.median(turn_p99s) * 1000,
    }


def table() -> str:
    lines = [
        f"Generated stories (bench/synthetic.py), {QUERIES} queries each (reworded phrases with",
        f"a dropped word or a typo, one in five noise); medians of {RUNS} runs. `search` is the",
        "index alone; `turn` is the whole engine turn (entities, contexts, rendering). Memory:",
        "what the compiled story holds (tracemalloc, one extra build).",
        "",
        "| story | phrases | build | memory | search p50 | search p99 | turn p50 | turn p99 "
        "| goal (p99) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    goals = {150: "≤ 1 ms", 1000: "≤ 5 ms"}
    semantic = {}
    for size in SIZES:
        m = measure(size)
        semantic[size] = measure_semantic(size)
        lines.append(
            f"| {size} × 99 | {m['phrases']:.0f} | {m['build_ms']:.0f} ms | "
            f"{m['memory_mib']:.0f} MiB | {m['p50_ms']:.2f} ms | {m['p99_ms']:.2f} ms | "
            f"{m['turn_p50_ms']:.2f} ms | "
            f"{m['turn_p99_ms']:.2f} ms | {goals[size]} |"
        )
    lines += [
        "",
        "With the semantic stage: the story compiled with its stored phrase vectors (random",
        "stand-ins of the model's size), and whole turns with the real encoder (one run; a",
        "message is encoded only when the lexical stage is not decisive). Goals for 1000 × 99:",
        "compiled ≤ 150 MiB, compile ≤ 1.5 s.",
        "",
        "| story | compile | memory | turn p50 | turn p99 |",
        "|---|---|---|---|---|",
    ]
    for size, m in semantic.items():
        lines.append(
            f"| {size} × 99 | {m['build_ms']:.0f} ms | {m['memory_mib']:.0f} MiB | "
            f"{m['turn_p50_ms']:.2f} ms | {m['turn_p99_ms']:.2f} ms |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
