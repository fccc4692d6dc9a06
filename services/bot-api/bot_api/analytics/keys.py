"""Analytics' application keys."""

from aiohttp import web

from bot_api.analytics.counters import AnalyticsCounters
from bot_api.analytics.service import AnalyticsReports

ANALYTICS = web.AppKey("analytics", AnalyticsCounters)
"""A listener of the history recorder: counts each batch of turns it stores."""
ANALYTICS_REPORTS = web.AppKey("analytics_reports", AnalyticsReports)
