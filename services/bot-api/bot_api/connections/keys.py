"""The connection view's application key (fed by messaging.connection_events)."""

from aiohttp import web

from bot_api.connections.repository import ConnectionView

CONNECTION_VIEW = web.AppKey[ConnectionView]("connection_view")
