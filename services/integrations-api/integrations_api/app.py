import asyncio
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from integrations_api.api import CONNECTION_STATUS_FIELD, routes
from integrations_api.channels import sender
from integrations_api.channels.api import routes as channel_routes
from integrations_api.channels.failures import SigningFailures
from integrations_api.channels.repository import ChannelRepository, DeliveryRecord
from integrations_api.channels.service import ChannelBackends, register_where_moved
from integrations_api.channels.turns import NatsTurns
from integrations_api.channels.work import Work
from integrations_api.connections import ConnectionRepository
from integrations_api.keys import (
    BACKENDS,
    CHANNEL_BACKENDS,
    CHANNEL_DELIVERIES,
    CHANNELS,
    CONFIG,
    CONNECTIONS,
    DATABASE,
    NATS,
    OUTBOX,
    SIGNING_FAILURES,
)
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

log = logging.getLogger(__name__)


async def open_repository(app: web.Application) -> AsyncIterator[None]:
    app[CONNECTIONS] = ConnectionRepository(app[DATABASE])
    app[CHANNELS] = ChannelRepository(app[DATABASE])
    app[CHANNEL_DELIVERIES] = DeliveryRecord(app[DATABASE])
    for repository in (app[CONNECTIONS], app[CHANNELS], app[CHANNEL_DELIVERIES]):
        await repository.ensure_indexes()
    yield


async def wire_backends(app: web.Application) -> AsyncIterator[None]:
    """What the use cases work with, once MongoDB, NATS and the outbox are open."""
    subjects = app[CONFIG].subjects
    stories = NatsStoryDirectory(app[NATS], subjects)
    app[BACKENDS] = Backends(
        app[CONNECTIONS], stories, app[OUTBOX], subjects, app[CONFIG].quota_connections
    )
    yield


async def channels(app: web.Application) -> AsyncIterator[None]:
    """The channels' client session for the platforms and their background work; at
    shutdown the work left is cancelled before the session closes. With
    INTEGRATIONS_PUBLIC_URL set, the webhooks registered at another address are
    registered again, in the background (channels/service.py register_where_moved)."""
    config = app[CONFIG]
    bases = {
        "telegram": config.telegram_api_url,
        "slack": config.slack_api_url,
        "messenger": config.meta_graph_url,
        "whatsapp": config.meta_graph_url,
    }
    work = Work()
    app[SIGNING_FAILURES] = SigningFailures(config)
    async with sender.opened(bases) as platforms:
        app[CHANNEL_BACKENDS] = ChannelBackends(
            app[CHANNELS],
            app[CHANNEL_DELIVERIES],
            NatsStoryDirectory(app[NATS], config.subjects),
            platforms,
            NatsTurns(app[NATS], config.subjects),
            work,
            config.quota_channels,
        )
        moved = None
        if config.integrations_public_url:
            moved = asyncio.create_task(
                _register_where_moved(app[CHANNEL_BACKENDS], config.integrations_public_url)
            )
        yield
        if moved is not None:
            moved.cancel()
            await asyncio.gather(moved, return_exceptions=True)
        await work.close()


async def _register_where_moved(backends: ChannelBackends, base_url: str) -> None:
    try:
        await register_where_moved(backends, base_url)
    except Exception:
        log.exception("channel webhooks not registered again at %s", base_url)


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
            channels,
            consumers,
            connection_lookups,
        ]
    )
    add_meta_routes(app, "Parley integrations-api")
    app.router.add_routes(routes)
    app.router.add_routes(channel_routes)
    return app
