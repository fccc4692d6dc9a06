"""The Prometheus metrics both services keep, and the /metrics route that shows them.

Each process exports its own figures; the gateway does not route /metrics, so only
what scrapes the services' own ports sees it (deploy/README.md). bot-api's own metrics
are in `bot_api.metrics`.
"""

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

HTTP_REQUESTS = Counter(
    "parley_http_requests", "HTTP requests answered", ["method", "route", "status"]
)
HTTP_LATENCY = Histogram(
    "parley_http_request_seconds", "Time to answer an HTTP request", ["method", "route"]
)
EVENTS_PUBLISHED = Counter("parley_events_published", "Events published to JetStream")
EVENTS_CONSUMED = Counter("parley_events_consumed", "Events handled and acknowledged", ["consumer"])
EVENTS_REDELIVERED = Counter(
    "parley_events_redelivered", "Events received again after a failure or a lost ack", ["consumer"]
)
OUTBOX_BACKLOG = Gauge("parley_outbox_backlog", "Events in the outbox waiting to be published")
MONGODB_ERRORS = Counter(
    "parley_mongodb_errors", "Requests that failed on a MongoDB error", ["error"]
)


async def metrics(request: web.Request) -> web.Response:
    response = web.Response(body=generate_latest())
    response.content_type = CONTENT_TYPE_LATEST.split(";")[0]
    response.charset = "utf-8"
    return response


def add_metrics_route(app: web.Application) -> None:
    app.router.add_get("/metrics", metrics)
