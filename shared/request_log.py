"""One log line and the HTTP metrics of every request.

The route is the template that matched (`/stories/{story_id}`), never the path, so a
line holds no id a client chose, and the metrics keep a bounded set of labels.
"""

import logging
import time

from aiohttp import web

from shared.endpoints import PRINCIPAL
from shared.envelope import REQUEST_ID, Handler
from shared.logs import FIELDS
from shared.metrics import HTTP_LATENCY, HTTP_REQUESTS

log = logging.getLogger("parley.requests")
UNMATCHED = "unmatched"
CLIENT_CLOSED = 499  # the client went away before the answer (nginx's code for it)


def route_of(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return UNMATCHED if resource is None else resource.canonical


@web.middleware
async def request_log_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    started = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as error:  # a redirect, which the envelope lets through
        status = error.status
        raise
    except BaseException:
        status = CLIENT_CLOSED
        raise
    finally:
        seconds = time.perf_counter() - started
        route = route_of(request)
        HTTP_REQUESTS.labels(request.method, route, str(status)).inc()
        HTTP_LATENCY.labels(request.method, route).observe(seconds)
        principal = request.get(PRINCIPAL)
        fields = {
            "request_id": request.get(REQUEST_ID),
            "method": request.method,
            "route": route,
            "status": status,
            "latency_ms": round(seconds * 1000, 2),
            "account_id": None if principal is None else principal.account_id,
        }
        log.info("%s %s %s", request.method, route, status, extra={FIELDS: fields})
