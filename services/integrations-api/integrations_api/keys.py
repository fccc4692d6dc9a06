"""Every application key of integrations-api: the shared plumbing's it uses, and its own."""

from aiohttp import web

from integrations_api.channels.failures import SigningFailures
from integrations_api.channels.repository import ChannelRepository, DeliveryRecord
from integrations_api.channels.service import ChannelBackends
from integrations_api.connections import ConnectionRepository
from integrations_api.service import Backends
from shared.keys import CONFIG, DATABASE, NATS, OUTBOX

CONNECTIONS = web.AppKey("connections", ConnectionRepository)
BACKENDS = web.AppKey("backends", Backends)
CHANNELS = web.AppKey("channels", ChannelRepository)
CHANNEL_DELIVERIES = web.AppKey("channel_deliveries", DeliveryRecord)
CHANNEL_BACKENDS = web.AppKey("channel_backends", ChannelBackends)
SIGNING_FAILURES = web.AppKey("signing_failures", SigningFailures)

__all__ = [
    "BACKENDS",
    "CHANNELS",
    "CHANNEL_BACKENDS",
    "CHANNEL_DELIVERIES",
    "CONFIG",
    "CONNECTIONS",
    "DATABASE",
    "NATS",
    "OUTBOX",
    "SIGNING_FAILURES",
]
