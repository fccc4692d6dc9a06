import json
from datetime import timedelta
from typing import Any

from aiohttp import web

from bot_api.analytics.keys import ANALYTICS_REPORTS
from bot_api.analytics.schemas import AnalyticsQuerySchema, AnalyticsSchema
from bot_api.common.views import account_of
from bot_api.domain.analytics import Span
from shared.endpoints import QUERY, endpoint
from shared.timeutil import utcnow

routes = web.RouteTableDef()

DEFAULT_RANGE = timedelta(days=30)
REPORT = AnalyticsSchema()


@routes.get("/stories/{story}/analytics")
@endpoint(
    summary="A story's conversations, messages, fallbacks, containment, latency and answers "
    "per interaction, in total and per hour or day",
    tag="analytics",
    query=AnalyticsQuerySchema(),
    response=AnalyticsSchema(),
    errors=(400, 404, 429),
)
async def read_analytics(request: web.Request) -> web.Response:
    asked = request[QUERY]
    end = asked.get("to") or utcnow()
    start = asked.get("from_") or end - DEFAULT_RANGE
    text = await request.app[ANALYTICS_REPORTS].report(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        span=Span.of(start, end, asked["interval"]),
        render=_as_json,
        only=(asked.get("source"), asked.get("channel")),
    )
    return web.Response(text=text, content_type="application/json")


def _as_json(report: dict[str, Any]) -> str:
    """The report as the endpoint's schema writes it: a year by hour takes a second, so it
    is written in the report's thread, not on the event loop."""
    return json.dumps(REPORT.dump(report))
