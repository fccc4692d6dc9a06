"""Entities' application key."""

from aiohttp import web

from bot_api.entities.repository import EntityStore
from bot_api.entities.service import EntityService

ENTITIES = web.AppKey("entities", EntityService)
ENTITY_STORE = web.AppKey[EntityStore]("entity_store")
