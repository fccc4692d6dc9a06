"""The JSON envelope every response wears, and the middleware that puts errors in it.

Management endpoints name the outcome `status.errorType`; the connection API and
/query name it `status.type` (docs/api.md "Envelope and errors"). Each app sets its default in
`STATUS_FIELD`, and an endpoint may override it.
"""

import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from pymongo.errors import ConnectionFailure

from shared.errors import STATUSES, ApiError, Unavailable, from_domain
from shared.keys import STATUS_FIELD
from shared.metrics import MONGODB_ERRORS
from shared.timeutil import iso, utcnow

log = logging.getLogger(__name__)

REQUEST_ID = web.RequestKey("request_id", str)
_VALID_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def envelope(status_field: str, code: int, outcome: str, **extra: Any) -> dict[str, Any]:
    return {"timestamp": iso(utcnow()), "status": {"code": code, status_field: outcome}, **extra}


def status_field_of(request: web.Request) -> str:
    spec = getattr(request.match_info.handler, "__endpoint__", None)
    if spec is not None and spec.status_field is not None:
        return str(spec.status_field)
    return request.app[STATUS_FIELD]


def error_body(
    status_field: str,
    status: int,
    error_type: str,
    details: str,
    errors: dict[str, Any] | None,
    request_id: str,
) -> dict[str, Any]:
    """An error's answer: also what bot-api replies to a channel's turn that failed."""
    body = envelope(status_field, status, error_type)
    body["status"]["errorDetails"] = details
    if errors is not None:
        body["status"]["errors"] = errors
    if status >= 500:
        body["status"]["requestId"] = request_id
    return body


def error_response(
    request: web.Request,
    status: int,
    error_type: str,
    details: str,
    errors: dict[str, Any] | None = None,
) -> web.Response:
    body = error_body(
        status_field_of(request), status, error_type, details, errors, request[REQUEST_ID]
    )
    return web.json_response(body, status=status)


@web.middleware
async def envelope_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    incoming = request.headers.get("X-Request-Id", "")
    request[REQUEST_ID] = incoming if _VALID_REQUEST_ID.match(incoming) else uuid.uuid4().hex
    response: web.StreamResponse
    try:
        response = await handler(request)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        error_type = STATUSES.get(error.status, STATUSES[400]).error_type
        response = error_response(request, error.status, error_type, error.reason)
        if error.status == 405:
            response.headers["Allow"] = error.headers.get("Allow", "")
    except Exception as error:
        answer = answer_to(error, f"request {request[REQUEST_ID]}")
        response = error_response(
            request, answer.status, answer.error_type, answer.details, answer.errors
        )
        response.headers.update(answer.headers)
    response.headers["X-Request-Id"] = request[REQUEST_ID]
    return response


def answer_to(error: Exception, where: str) -> ApiError:
    """What an exception answers: itself when it is an ApiError; a 503 when the database
    is unavailable (counted and logged); what a domain error declares; else a 500, logged
    with its trace. `where` names it in the log (a request, a channel's turn)."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, ConnectionFailure):
        MONGODB_ERRORS.labels(type(error).__name__).inc()
        log.warning("database unavailable (%s): %s", where, error)
        return Unavailable("the database is unavailable")
    answer = from_domain(error)
    if answer is None:
        log.error("unhandled error (%s)", where, exc_info=error)
        answer = ApiError("internal server error")
    return answer
