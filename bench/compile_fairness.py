"""The first query of a small story while large stories compile: tenant A's stories at
the limits (5,000 interactions, ~100,000 phrases each) asked for at once on a fresh
bot-api process, and half a second later tenant B's new story of one interaction. How
long B's and A's first queries take and what they answer, and /healthz meanwhile (the
campaign of issue 29 found B's first 200 after 51 s). Lexical only: the semantic stage
is added in the background either way. Run: `python -m bench.compile_fairness`."""

import asyncio
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import aiohttp

from bench.first_query import INTERACTIONS, PHRASES
from bench.stack import Stack, create_account, running_stack, serve
from bench.synthetic import stored_story, story_interactions
from bot_api.domain.interactions import Interaction, default_interactions
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Context, Structure
from bot_api.engine.story import CompiledStory, StoryCompile
from bot_api.interactions.schemas import InteractionWriteSchema
from bot_api.story_cache.compiler import CHUNK_PHRASES
from tests.support.responsiveness import Pings, pinging

LARGE_STORIES = 5
"""Tenant A's stories at the limits, as in the campaign."""
SMALL_DELAY_SECONDS = 0.5
"""B asks once A's compiles are under way."""
GIVE_UP_SECONDS = 300
COST_RUNS = 3
"""Compiles of each kind measured in turn (CPU time: the machine is shared)."""


@dataclass
class FirstQuery:
    first_status: int
    first_seconds: float
    first_200_seconds: float
    failed: int
    """Answers other than 200 before the first 200."""


async def first_query(url: str, token: str, story_id: str | None) -> FirstQuery:
    """Asked until it answers 200 (each try within the request budget)."""
    headers = {"Authorization": f"Bearer {token}"}
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(url, headers=headers, timeout=timeout) as http:
        started = time.perf_counter()
        first: tuple[int, float] | None = None
        failed = 0
        while time.perf_counter() - started < GIVE_UP_SECONDS:
            body: dict[str, Any] = {"sessionId": f"s{time.monotonic_ns()}", "query": "hello"}
            if story_id is not None:
                body["storyId"] = story_id
            async with http.post("/query", json=body) as reply:
                await reply.read()
                status = reply.status
            if first is None:
                first = (status, time.perf_counter() - started)
            if status == 200:
                return FirstQuery(*first, time.perf_counter() - started, failed)
            failed += 1
    raise RuntimeError(f"no 200 within {GIVE_UP_SECONDS} s")


async def scenario(stack: Stack, large: list[str], small_token: str) -> dict[str, Any]:
    async with pinging(stack.url) as pings:
        large_queries = [
            asyncio.create_task(first_query(stack.url, stack.tokens.developer_token, s))
            for s in large
        ]
        await asyncio.sleep(SMALL_DELAY_SECONDS)
        small = await first_query(stack.url, small_token, None)
        larges = await asyncio.gather(*large_queries)
    return {"small": small, "large": larges, "pings": pings}


def measured() -> dict[str, Any]:
    interactions = story_interactions(INTERACTIONS, PHRASES)
    with running_stack("compile-fair", semantic_matching=False) as stack:
        small_tenant = asyncio.run(create_account(stack.config, "tenant-b"))

        async def seed() -> list[str]:
            config, account_id = stack.config, stack.tokens.account_id
            large = [
                await stored_story(config, account_id, interactions) for _ in range(LARGE_STORIES)
            ]
            hello = [{"name": "Hello", "userSays": ["hello"], "responses": [_text("Hi!")]}]
            await stored_story(config, small_tenant.account_id, hello, "small")
            return large

        large = asyncio.run(seed())
        stack.bot_api.stop()
        fresh = serve(stack.config, stack.directory)
        try:
            running = replace(stack, bot_api=fresh)
            return asyncio.run(scenario(running, large, small_tenant.developer_token))
        finally:
            fresh.stop()


def _text(message: str) -> dict[str, Any]:
    return {"type": "text", "messages": [message]}


def cpu_seconds(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def compile_costs() -> str:
    """A story at the limits compiled at once and in chunks, in CPU seconds (medians)."""
    schema = InteractionWriteSchema()
    contents: list[Interaction] = [
        *(replace(d, id=str(uuid.uuid4())) for d in default_interactions()),
        *(
            replace(schema.load(i), id=str(uuid.uuid4()))
            for i in story_interactions(INTERACTIONS, PHRASES)
        ),
    ]
    ids = tuple(c.id for c in contents)
    structure = Structure(ids, {i: Context(root=True) for i in ids}, frozenset(ids[:2]))

    def in_chunks() -> StoryCompile:
        return StoryCompile("limits", Settings(), structure, contents, [])

    whole, chunked, steps, last, first = [], [], [], [], []

    def at_once() -> CompiledStory:
        return CompiledStory.compile("limits", Settings(), structure, contents, [])

    for _ in range(COST_RUNS):
        whole.append(cpu_seconds(at_once))
        story = in_chunks()
        times = []
        while not story.done:
            times.append(cpu_seconds(lambda s=story: s.step(CHUNK_PHRASES)))
        last.append(cpu_seconds(story.story))
        chunked.append(sum(times) + last[-1])
        steps.append(max(times))
        story = in_chunks()
        story.step(CHUNK_PHRASES)
        first.append(cpu_seconds(story.story))
    median = statistics.median
    return (
        f"A story at the limits ({len(contents):,} interactions, {PHRASES} phrases each) "
        f"compiled in this process, CPU seconds, median of {COST_RUNS}:\n\n"
        "| compiled | CPU | longest job |\n|---|---|---|\n"
        f"| at once (`CompiledStory.compile`) | {median(whole):.2f} s | the same |\n"
        f"| in chunks of {CHUNK_PHRASES:,} phrases, then the index made (`StoryCompile`) "
        f"| {median(chunked):.2f} s | {median(steps) * 1000:.0f} ms a chunk, "
        f"{median(last) * 1000:.0f} ms the index |\n"
        f"| a partial story after one chunk | {median(first) * 1000:.0f} ms | the same |\n"
    )


def table() -> str:
    costs = compile_costs()
    figures = measured()
    small: FirstQuery = figures["small"]
    large: list[FirstQuery] = figures["large"]
    pings: Pings = figures["pings"]
    large_first = sorted(q.first_seconds for q in large)
    rows = [
        "| | first answer | its time | first 200 after | answers before it |",
        "|---|---|---|---|---|",
        f"| B's 1-interaction story | {small.first_status} | {small.first_seconds:.2f} s "
        f"| {small.first_200_seconds:.2f} s | {small.failed} |",
        f"| A's {LARGE_STORIES} stories at the limits | "
        f"{', '.join(str(q.first_status) for q in large)} | "
        f"{large_first[0]:.1f} to {large_first[-1]:.1f} s | "
        f"{max(q.first_200_seconds for q in large):.1f} s (last) | "
        f"{sum(q.failed for q in large)} |",
    ]
    return (
        f"Tenant A's {LARGE_STORIES} stories of {INTERACTIONS + 2:,} interactions × {PHRASES} "
        f"phrases asked for at once on a fresh bot-api, tenant B's 1-interaction story "
        f"{SMALL_DELAY_SECONDS} s later (lexical only):\n\n"
        + "\n".join(rows)
        + f"\n\n/healthz meanwhile: p50 {1000 * pings.percentile(0.5):.1f} ms, "
        f"p99 {pings.p99_ms:.0f} ms, max {1000 * max(pings.latencies):.0f} ms "
        f"over {len(pings.latencies)} pings.\n\n{costs}"
    )


if __name__ == "__main__":
    print(table())
