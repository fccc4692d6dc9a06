"""Entities' application key."""

from aiohttp import web

from bot_api.entities.service import EntityService

ENTITIES = web.AppKey("entities", EntityService)
