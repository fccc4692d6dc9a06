"""Long work shared fairly between accounts (shared/fair_work.py, issue 29), in process:
an account's small import beside another's slow one (5,000 interactions near the bounds
checked before parsing), and how soon the cancelled import frees its thread; another
account's 1-test run beside a run of 100 × 20 turns on the generated 150 × 99 story
(lexical), one test a job as the service runs them, and as one job (as before).
`python -m bench.fair_work`; make bench writes its section."""

import asyncio
import functools
import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bench.conversation_tests import INTERACTIONS, PHRASES, suite
from bench.matching import build
from bench.report import write_section
from bench.synthetic import story_interactions
from bot_api.domain.conversation_tests import (
    MAX_TESTS_PER_STORY,
    MAX_TURNS_PER_TEST,
    StoredTest,
    TestRun,
)
from bot_api.engine.replay import replay
from bot_api.transfer.schemas import read_upload
from bot_api.transfer.sources import JSON
from shared.fair_work import FairWork

SLOW_IMPORT = json.dumps(
    {
        "format": "parley.story",
        "version": 1,
        "name": "Near the limits",
        "interactions": [
            {"key": f"k{n}", "name": f"I{n}", "userSays": [1] * 95} for n in range(5_000)
        ],
    },
    separators=(",", ":"),
).encode()
"""An upload within every bound an import checks before parsing (10,000 items a list,
500,000 values in all, 32 levels; 4 MiB a body) that is still long to read: 5,000
interactions of 95 phrases that are numbers, each a problem the schemas find and report
(1.2 MB; 6 s of one thread on the loaded 2-core test machine)."""
SMALL = (
    b'{"format": "parley.story", "version": 1, "name": "Small", "interactions": '
    b'[{"key": "hours", "name": "Hours", "userSays": ["when are you open"]}]}'
)


async def _timed(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    await run()
    return time.perf_counter() - started


async def imports() -> tuple[float, float]:
    """Seconds of another account's small import beside the slow one, and from the slow
    one's cancel to its account's next job."""
    fair = FairWork(2, "bench")
    started = threading.Event()

    def slow() -> object:
        started.set()
        return read_upload(JSON, SLOW_IMPORT)

    try:
        task = asyncio.create_task(fair.run("a", slow))
        await asyncio.to_thread(started.wait)
        small = await _timed(lambda: fair.run("b", functools.partial(read_upload, JSON, SMALL)))
        task.cancel()
        freed = await _timed(lambda: fair.run("a", lambda: None))
    finally:
        fair.close()
    return small, freed


async def runs(per_test: bool) -> tuple[float, float]:
    """Seconds of the 100 × 20 run, and of another account's 1-test run started beside it."""
    interactions = story_interactions(INTERACTIONS, phrases=PHRASES)
    story = build(interactions)
    tests = suite(story, interactions, MAX_TESTS_PER_STORY, MAX_TURNS_PER_TEST, None)
    now = datetime.now(UTC)
    fair = FairWork(1, "bench")
    began = threading.Event()

    def replayed(chosen: list[StoredTest]) -> TestRun:
        began.set()
        return replay(story, chosen, now)

    async def large() -> TestRun:
        jobs = [[test] for test in tests] if per_test else [tests]
        parts = [await fair.run("a", functools.partial(replayed, j)) for j in jobs]
        return TestRun.joined(parts, now)

    try:
        started = time.perf_counter()
        task = asyncio.create_task(large())
        await asyncio.to_thread(began.wait)
        small = await _timed(
            lambda: fair.run("b", functools.partial(replay, story, tests[:1], now))
        )
        await task
        return time.perf_counter() - started, small
    finally:
        fair.close()


def table() -> str:
    small_import, freed = asyncio.run(imports())
    rows = [
        f"| another account's small import beside a slow one | {small_import:.3f} |",
        f"| the cancelled slow import's account: its next job starts after | {freed:.3f} |",
    ]
    for per_test, how in ((False, "one job (before)"), (True, "one test a job")):
        whole, small = asyncio.run(runs(per_test))
        rows.append(f"| a 100 × 20 run, {how} | {whole:.3f} |")
        rows.append(f"| another account's 1-test run beside it, {how} | {small:.3f} |")
    return "\n".join(
        [
            "In process, FairWork's threads (2 for transfers, 1 for test runs).",
            "",
            "| what | seconds |",
            "|---|---|",
            *rows,
        ]
    )


def main() -> None:
    body = table()
    write_section("fair-work", "Long work shared between accounts (make bench)", body)
    print(body)


if __name__ == "__main__":
    main()
