"""The webhook connections' application key: what the use cases work with."""

from aiohttp import web

from integrations_api.connections.service import ConnectionBackends

CONNECTION_BACKENDS = web.AppKey("connection_backends", ConnectionBackends)
