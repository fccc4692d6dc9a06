"""What every Parley service's application starts with: the envelope middleware, the
health routes, the OpenAPI document, and MongoDB and NATS opened in cleanup_ctx."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from aiohttp import web
from nats.aio.client import Client as NatsClient
from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

from shared import health, messaging, mongo
from shared.auth import AccountRepository, PrincipalCache
from shared.config import Config
from shared.endpoints import ACCOUNTS, PRINCIPALS
from shared.envelope import STATUS_FIELD, envelope_middleware
from shared.openapi import add_openapi_route
from shared.outbox import OUTBOX, Outbox

CONFIG = web.AppKey("config", Config)
MONGO = web.AppKey("mongo", AsyncMongoClient)
DATABASE = web.AppKey("database", AsyncDatabase)
NATS = web.AppKey("nats", NatsClient)

OUTBOX_STOP_SECONDS = 5.0
SHUTDOWN_STEP_SECONDS = 10.0  # no step of a shutdown may hang it
OnMongo = Callable[[web.Application, AsyncDatabase], Awaitable[None]]


def base_application(
    config: Config,
    name: str,
    status_field: str,
    database: str,
    on_mongo: OnMongo | None = None,
) -> web.Application:
    """An app with the shared plumbing around the service's own `database`: MongoDB,
    NATS and the event outbox; `on_mongo` sets up the service's repositories."""
    app = web.Application(middlewares=[envelope_middleware], client_max_size=config.max_body_bytes)
    app[CONFIG] = config
    app[STATUS_FIELD] = status_field

    async def mongo_context(app: web.Application) -> AsyncIterator[None]:
        client = mongo.open_client(config.mongodb_url)
        app[MONGO] = client
        app[DATABASE] = client[database]
        app[ACCOUNTS] = AccountRepository(client[config.accounts_database])
        app[PRINCIPALS] = PrincipalCache(app[ACCOUNTS])
        await app[ACCOUNTS].ensure_indexes()
        if on_mongo is not None:
            await on_mongo(app, app[DATABASE])
        yield
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.close(), SHUTDOWN_STEP_SECONDS)

    async def nats_context(app: web.Application) -> AsyncIterator[None]:
        app[NATS] = await messaging.connect(config.nats_url, name)
        await messaging.ensure_stream(app[NATS], config.subjects)
        app[OUTBOX] = Outbox(app[DATABASE], app[NATS])
        publisher = asyncio.create_task(app[OUTBOX].run())
        yield
        app[OUTBOX].stop()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(publisher, OUTBOX_STOP_SECONDS)
        with contextlib.suppress(TimeoutError):
            if app[NATS].is_connected:
                await asyncio.wait_for(app[NATS].drain(), SHUTDOWN_STEP_SECONDS)
            else:
                await app[NATS].close()  # NATS is away: nothing to drain

    async def mongo_ready() -> bool:
        await app[MONGO].admin.command("ping")
        return True

    async def nats_ready() -> bool:
        return bool(app[NATS].is_connected)

    app.cleanup_ctx.append(mongo_context)
    app.cleanup_ctx.append(nats_context)
    app[health.PROBES] = {"mongodb": mongo_ready, "nats": nats_ready}
    app.router.add_routes(health.routes)
    add_openapi_route(app, f"Parley {name}", "0.1.0")
    return app
