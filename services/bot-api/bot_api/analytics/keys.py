"""Analytics' application keys."""

from aiohttp import web

from bot_api.analytics.counters import AnalyticsCounters, AnalyticsStore
from bot_api.analytics.service import AnalyticsReports

ANALYTICS = web.AppKey("analytics", AnalyticsCounters)
"""A listener of the history recorder: counts each batch of turns it stores."""
ANALYTICS_REPORTS = web.AppKey("analytics_reports", AnalyticsReports)
ANALYTICS_STORE = web.AppKey[AnalyticsStore]("analytics_store")
"""The counters' repository: a story's deletion empties its counters."""
