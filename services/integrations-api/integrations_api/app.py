from collections.abc import AsyncIterator

from aiohttp import web

from integrations_api.api import CONNECTION_STATUS_FIELD, routes
from integrations_api.connections import ConnectionRepository
from integrations_api.keys import BACKENDS, CONFIG, CONNECTIONS, DATABASE, NATS, OUTBOX
from integrations_api.messaging import connection_lookups, consumers
from integrations_api.service import Backends
from integrations_api.stories import NatsStoryDirectory
from shared.config import Config
from shared.service import (
    add_meta_routes,
    mongo_context,
    nats_context,
    new_app,
    outbox_context,
    replicas_context,
    rotations_context,
)


async def open_repository(app: web.Application) -> AsyncIterator[None]:
    app[CONNECTIONS] = ConnectionRepository(app[DATABASE])
    await app[CONNECTIONS].ensure_indexes()
    yield


async def wire_backends(app: web.Application) -> AsyncIterator[None]:
    """What the use cases work with, once MongoDB, NATS and the outbox are open."""
    subjects = app[CONFIG].subjects
    stories = NatsStoryDirectory(app[NATS], subjects)
    app[BACKENDS] = Backends(
        app[CONNECTIONS], stories, app[OUTBOX], subjects, app[CONFIG].quota_connections
    )
    yield


def create_app(config: Config) -> web.Application:
    app = new_app(config, status_field=CONNECTION_STATUS_FIELD)
    app.cleanup_ctx.extend(
        [
            mongo_context(config.integrations_database),
            open_repository,
            nats_context("integrations-api"),
            replicas_context("integrations-api"),
            rotations_context(),
            outbox_context(),
            wire_backends,
            consumers,
            connection_lookups,
        ]
    )
    add_meta_routes(app, "Parley integrations-api")
    app.router.add_routes(routes)
    return app
