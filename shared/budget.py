"""Every request answers within its budget (`REQUEST_BUDGET_SECONDS`, 10 s by default),
whatever MongoDB does: a 503 `unavailable` when time runs out. PyMongo's own deadline
ends a database call in time, and the asyncio deadline ends anything else."""

import asyncio
from collections.abc import Awaitable, Callable

import pymongo
from aiohttp import web
from pymongo.errors import PyMongoError

from shared.errors import Unavailable
from shared.keys import CONFIG
from shared.metrics import MONGODB_ERRORS

DATABASE_SHARE = 0.9
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def budget_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    seconds = request.app[CONFIG].request_budget_seconds
    try:
        # The database's deadline comes first, so a stall ends as a database error
        # (counted in the metrics); the asyncio deadline ends anything else.
        with pymongo.timeout(seconds * DATABASE_SHARE):
            async with asyncio.timeout(seconds):
                return await handler(request)
    except TimeoutError:
        raise Unavailable(f"the request did not finish within {seconds:g} s; try again") from None
    except PyMongoError as error:
        if error.timeout:
            MONGODB_ERRORS.labels(type(error).__name__).inc()
            raise Unavailable(f"the database did not answer within {seconds:g} s") from None
        raise
