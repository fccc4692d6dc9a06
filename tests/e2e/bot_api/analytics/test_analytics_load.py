"""Another account's /query stays responsive while one account loops over a year of
hourly analytics (issue 29: four such loops raised its p50 from 22 ms to 1,088 ms, p99
1.6 s): the reports are built off the event loop, two at most per account."""

import asyncio
import time
from collections.abc import Callable

from aiohttp.test_utils import TestClient

from support.api import Tenant

YEAR_BY_HOUR = "?from=2025-11-01T00:00:00Z&to=2026-11-02T00:00:00Z&interval=hour"
LOOPS = 4
REPORTS_PER_LOOP = 3
MEDIAN_QUERY_SECONDS = 0.5
SLOWEST_QUERY_SECONDS = 3.0
"""Generous bounds: measured here with the reports off the event loop, /query p50 50 to
73 ms, the slowest 0.74 to 0.91 s; with them on it (each held the loop 1.1 to 1.7 s), p50
2.2 s and the slowest 6.4 s."""


async def test_another_account_s_queries_stay_fast_while_analytics_loops_run(
    bot_api: TestClient, alice: Tenant, bob: Tenant, record_property: Callable[[str, object], None]
) -> None:
    reported = await alice.developer.create_story("Reported")
    await bob.developer.create_story("Asked")
    assert (await bob.public.post("/query", {"sessionId": "s", "query": "hi"})).status == 200
    answers: list[int] = []

    async def loop() -> None:
        for _ in range(REPORTS_PER_LOOP):
            async with bot_api.get(
                f"/stories/{reported}/analytics{YEAR_BY_HOUR}",
                headers={"Authorization": f"Bearer {alice.developer.token}"},
            ) as reply:
                await reply.read()  # unparsed: the client shares the server's event loop
                answers.append(reply.status)

    loops = [asyncio.create_task(loop()) for _ in range(LOOPS)]
    latencies: list[float] = []
    while not all(task.done() for task in loops):
        started = time.perf_counter()
        reply = await bob.public.post("/query", {"sessionId": "s", "query": "hi"})
        latencies.append(time.perf_counter() - started)
        assert reply.status == 200
    await asyncio.gather(*loops)
    assert set(answers) <= {200, 429} and 200 in answers
    latencies.sort()
    p50, p90 = latencies[len(latencies) // 2], latencies[len(latencies) * 9 // 10]
    record_property("/query p50 ms beside analytics loops", round(p50 * 1000))
    record_property("/query p90 ms beside analytics loops", round(p90 * 1000))
    record_property("/query max ms beside analytics loops", round(latencies[-1] * 1000))
    assert p50 < MEDIAN_QUERY_SECONDS and latencies[-1] < SLOWEST_QUERY_SECONDS
