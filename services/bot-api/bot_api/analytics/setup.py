"""The analytics' setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.analytics.counters import AnalyticsCounters
from bot_api.analytics.keys import ANALYTICS, ANALYTICS_REPORTS, ANALYTICS_STORE
from bot_api.analytics.repository import AnalyticsRepository
from bot_api.analytics.service import AnalyticsReports
from bot_api.interactions.keys import INTERACTION_STORE
from bot_api.keys import CONFIG, DATABASE
from bot_api.stories.keys import STORY_STORE
from shared.fair_work import FairWork

ANALYTICS_THREADS = 2
"""Threads building analytics reports, one account's at a time on one of them."""


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The counters (a listener of the history recorder's batches; a story's deletion
    empties its counters, `StoryService.delete`) and their reports."""
    repository = AnalyticsRepository(app[DATABASE])
    await repository.ensure_indexes()
    app[ANALYTICS], app[ANALYTICS_STORE] = AnalyticsCounters(repository), repository
    work = FairWork(ANALYTICS_THREADS, "analytics")
    app[ANALYTICS_REPORTS] = AnalyticsReports(
        stories=app[STORY_STORE],
        interactions=app[INTERACTION_STORE],
        counters=repository,
        work=work,
        limit=app[CONFIG].request_budget_seconds,
    )
    yield
    work.close()
