"""The misses inbox's application key."""

from aiohttp import web

from bot_api.inbox.service import InboxService

INBOX = web.AppKey("inbox", InboxService)
