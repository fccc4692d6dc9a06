"""The Prometheus metrics both services keep (shown at /metrics: shared/health.py).

Each process exports its own figures; the gateway does not route /metrics, so only
what scrapes the services' own ports sees it (deploy/README.md). bot-api's own metrics
are in `bot_api.metrics`.
"""

from prometheus_client import Counter, Gauge, Histogram

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
