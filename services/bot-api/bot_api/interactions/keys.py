"""Interactions' application keys."""

from aiohttp import web

from bot_api.interactions.repository import InteractionStore
from bot_api.interactions.service import ConnectionDirectory, InteractionService

INTERACTION_STORE = web.AppKey[InteractionStore]("interaction_store")
INTERACTIONS = web.AppKey("interactions", InteractionService)
CONNECTION_DIRECTORY = web.AppKey[ConnectionDirectory]("connection_directory")
"""Asks integrations-api whether a connection is the story's (messaging.NatsConnectionDirectory)."""
