"""Every request answers within its budget (`REQUEST_BUDGET_SECONDS`, 10 s by default),
whatever MongoDB does: a 503 `unavailable` when time runs out. PyMongo's own deadline
ends a database call in time, and the asyncio deadline ends anything else. A budget
that runs out while the client is still sending the body is the client's delay: a 408
`request_timeout`, as when `BODY_READ_SECONDS` runs out (the same 10 s by default).

PyMongo's deadline is a context variable, and a task inherits its creator's context:
work a request starts but does not wait for (a story's compile shared with later
requests, phrase vectors encoded in the background) is started with `beyond_request`,
in a context of its own, so it keeps the client's own per-operation timeout.

A channel's turn, asked over NATS rather than HTTP, has the same budget
(`within_budget`, bot_api/query/channel_turns.py).
"""

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import pymongo
from aiohttp import web
from pymongo.errors import PyMongoError

from shared.endpoints import endpoint_of
from shared.errors import RequestTimeout, Unavailable
from shared.keys import BODY_ARRIVING, CONFIG
from shared.metrics import MONGODB_ERRORS

DATABASE_SHARE = 0.9
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
T = TypeVar("T")


def beyond_request(work: Coroutine[Any, Any, T]) -> "asyncio.Task[T]":
    """A task free of the deadline of the request that starts it."""
    return asyncio.create_task(work, context=contextvars.Context())


@contextlib.asynccontextmanager
async def within_budget(seconds: float) -> AsyncIterator[None]:
    """The work inside ends within `seconds`: a database call past its share is an
    `Unavailable` (counted in the metrics), anything else a `TimeoutError`. The
    database's deadline comes first, so a stall ends as a database error; the asyncio
    deadline ends anything else."""
    try:
        with pymongo.timeout(seconds * DATABASE_SHARE):
            async with asyncio.timeout(seconds):
                yield
    except PyMongoError as error:
        if error.timeout:
            MONGODB_ERRORS.labels(type(error).__name__).inc()
            raise Unavailable(f"the database did not answer within {seconds:g} s") from None
        raise


@web.middleware
async def budget_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The request's budget: the service's, or the longer one its endpoint declares."""
    seconds = request.app[CONFIG].request_budget_seconds
    spec = endpoint_of(request)
    if spec is not None and spec.budget_seconds is not None:
        seconds = max(seconds, spec.budget_seconds)
    try:
        async with within_budget(seconds):
            return await handler(request)
    except TimeoutError:
        if request.get(BODY_ARRIVING, False):
            raise RequestTimeout(f"the body did not arrive within {seconds:g} s") from None
        raise Unavailable(f"the request did not finish within {seconds:g} s; try again") from None
