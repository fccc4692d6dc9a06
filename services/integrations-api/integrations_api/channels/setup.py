"""The channels' setup step."""

import asyncio
import functools
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from integrations_api.channels import conversations, sender
from integrations_api.channels.accepted import AcceptedMessages
from integrations_api.channels.deliveries import DeliveryRecord
from integrations_api.channels.failures import SigningFailures
from integrations_api.channels.keys import CHANNEL_BACKENDS, SIGNING_FAILURES
from integrations_api.channels.repository import ChannelRepository
from integrations_api.channels.service import ChannelBackends, register_where_moved
from integrations_api.channels.turns import NatsTurns
from integrations_api.channels.work import Work
from integrations_api.stories.keys import STORY_DIRECTORY
from shared.keys import CONFIG, DATABASE, NATS, REPLICAS

log = logging.getLogger(__name__)


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The repositories with their indexes, and the channels' client session for the
    platforms and their background work, with the leases of the messages accepted
    renewed and those of replicas that stopped taken over (accepted.py); at shutdown the
    renewals stop and the work left is cancelled (another replica takes it over) before
    the session closes. With INTEGRATIONS_PUBLIC_URL set, the webhooks registered at
    another address are registered again, in the background (service.py
    register_where_moved)."""
    config = app[CONFIG]
    channels, deliveries = ChannelRepository(app[DATABASE]), DeliveryRecord(app[DATABASE])
    for repository in (channels, deliveries):
        await repository.ensure_indexes()
    bases = {
        "telegram": config.telegram_api_url,
        "slack": config.slack_api_url,
        "messenger": config.meta_graph_url,
        "whatsapp": config.meta_graph_url,
    }
    work = Work()
    accepted = AcceptedMessages(deliveries, app[REPLICAS].me)
    app[SIGNING_FAILURES] = SigningFailures(config)
    async with sender.opened(bases) as platforms:
        backends = app[CHANNEL_BACKENDS] = ChannelBackends(
            channels,
            accepted,
            app[STORY_DIRECTORY],
            platforms,
            NatsTurns(app[NATS], config.subjects),
            work,
            config.quota_channels,
        )
        accepted.start(functools.partial(conversations.resume, backends))
        moved = None
        if config.integrations_public_url:
            moved = asyncio.create_task(
                _register_where_moved(app[CHANNEL_BACKENDS], config.integrations_public_url)
            )
        yield
        if moved is not None:
            moved.cancel()
            await asyncio.gather(moved, return_exceptions=True)
        await accepted.close()
        await work.close()


async def _register_where_moved(backends: ChannelBackends, base_url: str) -> None:
    try:
        await register_where_moved(backends, base_url)
    except Exception:
        log.exception("channel webhooks not registered again at %s", base_url)
