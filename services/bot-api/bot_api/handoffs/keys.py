"""Handoffs' application keys."""

from aiohttp import web

from bot_api.handoffs.live import DeskStreams
from bot_api.handoffs.service import HandoffService

HANDOFFS = web.AppKey("handoffs", HandoffService)
DESK_STREAMS = web.AppKey("desk streams", DeskStreams)
