"""Every application key of integrations-api: the shared plumbing's it uses, and its own."""

from aiohttp import web

from integrations_api.connections import ConnectionRepository
from integrations_api.service import Backends
from shared.keys import CONFIG, DATABASE, NATS, OUTBOX

CONNECTIONS = web.AppKey("connections", ConnectionRepository)
BACKENDS = web.AppKey("backends", Backends)

__all__ = ["BACKENDS", "CONFIG", "CONNECTIONS", "DATABASE", "NATS", "OUTBOX"]
