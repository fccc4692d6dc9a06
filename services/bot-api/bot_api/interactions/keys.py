"""Interactions' application keys."""

from aiohttp import web

from bot_api.interactions.repository import InteractionStore
from bot_api.interactions.service import InteractionService

INTERACTION_STORE = web.AppKey[InteractionStore]("interaction_store")
INTERACTIONS = web.AppKey("interactions", InteractionService)
