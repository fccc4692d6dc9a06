"""Analytics reports are heavy reads (a year by hour is 8,784 steps): built and written in
a thread shared fairly between accounts, at most two of one account under way at once
(issue 29: four loops of such reports on the event loop raised another account's /query
p50 from 22 ms to 1,088 ms)."""

import asyncio
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot_api.analytics.service import MAX_REPORTS_PER_ACCOUNT, AnalyticsReports
from bot_api.domain.analytics import Span
from bot_api.stories.service import StoryService
from integration.bot_api.analytics.memory import AnalyticsInMemory
from shared.fair_work import FairWork
from shared.rates import RateLimited
from support.held_jobs import until
from support.memory import Database

ACCOUNT = "a" * 24
OTHER = "b" * 24
END = datetime(2026, 11, 1, tzinfo=UTC)
YEAR_BY_HOUR = Span.of(END - timedelta(days=366), END, "hour")
MONTH_BY_DAY = Span.of(END - timedelta(days=30), END, "day")
WAIT = 10.0


@pytest.fixture
def reports(database: Database, work: FairWork) -> AnalyticsReports:
    return AnalyticsReports(
        stories=database.stories,
        interactions=database.interactions,
        counters=AnalyticsInMemory(),
        work=work,
    )


def written_in(threads: list[threading.Thread]) -> Callable[[dict[str, Any]], int]:
    def render(report: dict[str, Any]) -> int:
        threads.append(threading.current_thread())
        return len(report["series"])

    return render


async def test_a_report_is_built_and_written_off_the_event_loop(
    reports: AnalyticsReports, stories: StoryService
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, name="Pizza", description="")
    threads: list[threading.Thread] = []
    steps = await reports.report(
        account_id=ACCOUNT, story_id=story_id, span=YEAR_BY_HOUR, render=written_in(threads)
    )
    assert steps == 366 * 24
    assert threads and threads[0] is not threading.current_thread()


async def test_an_account_has_at_most_two_reports_under_way_and_others_are_not_refused(
    reports: AnalyticsReports, work: FairWork, stories: StoryService
) -> None:
    mine = await stories.create(account_id=ACCOUNT, name="Pizza", description="")
    theirs = await stories.create(account_id=OTHER, name="Pasta", description="")
    release = threading.Event()
    busy = asyncio.create_task(work.run("third", lambda: release.wait(WAIT)))
    await until(lambda: work.running() == 1)

    def report(account_id: str, story_id: str) -> "asyncio.Task[int]":
        return asyncio.create_task(
            reports.report(
                account_id=account_id, story_id=story_id, span=MONTH_BY_DAY, render=written_in([])
            )
        )

    waiting = [report(ACCOUNT, mine) for _ in range(MAX_REPORTS_PER_ACCOUNT)]
    await until(lambda: work.waiting() == MAX_REPORTS_PER_ACCOUNT)
    with pytest.raises(RateLimited) as refused:
        await reports.report(
            account_id=ACCOUNT, story_id=mine, span=MONTH_BY_DAY, render=written_in([])
        )
    assert refused.value.status == 429 and "Retry-After" in refused.value.headers
    other = report(OTHER, theirs)
    await until(lambda: work.waiting() == MAX_REPORTS_PER_ACCOUNT + 1)

    release.set()
    assert await busy
    assert await asyncio.gather(*waiting, other) == [30] * (MAX_REPORTS_PER_ACCOUNT + 1)
    assert (
        await reports.report(
            account_id=ACCOUNT, story_id=mine, span=MONTH_BY_DAY, render=written_in([])
        )
        == 30
    )
