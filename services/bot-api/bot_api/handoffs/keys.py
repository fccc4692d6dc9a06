"""Handoffs' application key."""

from aiohttp import web

from bot_api.handoffs.service import HandoffService

HANDOFFS = web.AppKey("handoffs", HandoffService)
