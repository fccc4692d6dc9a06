"""The analytics report at scale: a story of 30 interactions whose last 30 days hold
1,000,000 turns (about 1,389 an hour, conversations of about 5 turns, 8 % fallbacks,
log-normal latencies), counted through `AnalyticsCounters` one hour per batch as the
history recorder would hand them over; then GET /stories/{story}/analytics over those
30 days by hour (720 hour documents) and by day. `python -m bench.analytics`; the
figures are in docs/benchmarks.md."""

import asyncio
import random
import statistics
import time
from datetime import timedelta

import aiohttp

from bench.query_load import upload
from bench.report import write_section
from bench.stack import Stack, running_stack
from bench.synthetic import story_interactions
from bot_api.analytics.counters import AnalyticsCounters
from bot_api.analytics.repository import AnalyticsRepository
from bot_api.domain.analytics import hour_start
from bot_api.domain.history import AnsweredBy, TurnRecord
from shared import mongo
from shared.timeutil import utcnow

TURNS = 1_000_000
DAYS = 30
TURNS_PER_CONVERSATION = 5
FALLBACK_SHARE = 0.08
READS = 7


def hour_of_turns(
    story_id: str, start_hour: int, count: int, answers: list[AnsweredBy], rng: random.Random
) -> list[TurnRecord]:
    fallback = answers[-1]
    turns = []
    for n in range(count):
        fell_back = rng.random() < FALLBACK_SHARE
        turns.append(
            TurnRecord(
                account_id="bench",
                story_id=story_id,
                session_id=f"{start_hour}-{n // TURNS_PER_CONVERSATION}",
                at=hour_start(start_hour) + timedelta(seconds=rng.uniform(0, 3599)),
                outcome="fallback" if fell_back else "matched",
                interaction=fallback if fell_back else rng.choice(answers[:-1]),
                latency_ms=rng.lognormvariate(2.5, 0.6),
                webhook=None if rng.random() < 0.9 else "ok",
            )
        )
    return turns


async def count_turns(stack: Stack, story_id: str, ids: list[str]) -> float:
    """Seconds `turns_written` took to count TURNS turns, one hour's batch at a time."""
    client = mongo.open_client(stack.config.mongodb_url)
    try:
        counters = AnalyticsCounters(AnalyticsRepository(client[stack.config.bot_database]))
        answers = [AnsweredBy(i, f"interaction {n}", "standard") for n, i in enumerate(ids)]
        rng = random.Random(18)
        hours = DAYS * 24
        first = int((utcnow() - timedelta(days=DAYS)).timestamp() // 3600) + 1
        took = 0.0
        for hour in range(hours):
            count = TURNS // hours + (1 if hour < TURNS % hours else 0)
            batch = hour_of_turns(story_id, first + hour, count, answers, rng)
            started = time.perf_counter()
            await counters.turns_written(batch)
            took += time.perf_counter() - started
        return took
    finally:
        await client.close()


async def read_reports(stack: Stack, story_id: str, interval: str) -> tuple[float, int]:
    """Median milliseconds of READS reports of the last 30 days, and the messages counted."""
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    took = []
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        for _ in range(READS):
            started = time.perf_counter()
            path = f"/stories/{story_id}/analytics?interval={interval}"
            async with http.get(path) as reply:
                assert reply.status == 200, await reply.text()
                report = await reply.json()
            took.append(time.perf_counter() - started)
    return statistics.median(took) * 1000, report["totals"]["messages"]


def analytics_table(stack: Stack) -> str:
    story_id, ids = asyncio.run(upload(stack, story_interactions(30, phrases=5)))
    counting = asyncio.run(count_turns(stack, story_id, ids))
    hourly, messages = asyncio.run(read_reports(stack, story_id, "hour"))
    daily, _ = asyncio.run(read_reports(stack, story_id, "day"))
    lines = [
        f"{TURNS:,} turns over the last {DAYS} days of one story (30 interactions), counted",
        "through `AnalyticsCounters` an hour's batch at a time, then",
        f"GET /stories/{{story}}/analytics of those {DAYS} days over HTTP (median of {READS}).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| counting, turns per second (embedded server) | {TURNS / counting:,.0f} |",
        f"| report by hour ({DAYS * 24} hour documents) | {hourly:,.0f} ms |",
        f"| report by day | {daily:,.0f} ms |",
        f"| messages the report counted | {messages:,} |",
    ]
    return "\n".join(lines)


def main() -> None:
    with running_stack("analytics", semantic_matching=False) as stack:
        write_section("analytics", "Analytics report (make bench)", analytics_table(stack))


if __name__ == "__main__":
    main()
