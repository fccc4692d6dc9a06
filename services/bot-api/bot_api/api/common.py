from typing import Any

from aiohttp import web

from bot_api.changes import Changes
from bot_api.conversations.cache import StoryCache
from bot_api.deliveries import Deliveries
from bot_api.storage import Stores
from shared.endpoints import principal_of
from shared.envelope import envelope

STORES = web.AppKey("stores", Stores)
CHANGES = web.AppKey("changes", Changes)
STORY_CACHE = web.AppKey("story_cache", StoryCache)
DELIVERIES = web.AppKey("deliveries", Deliveries)
MANAGEMENT_STATUS_FIELD = "errorType"


def stores_of(request: web.Request) -> Stores:
    return request.app[STORES]


def changes_of(request: web.Request) -> Changes:
    return request.app[CHANGES]


def account_of(request: web.Request) -> str:
    return principal_of(request).account_id


def success() -> dict[str, Any]:
    return envelope(MANAGEMENT_STATUS_FIELD, 200, "success")


def created(record_id: str) -> dict[str, Any]:
    return envelope(MANAGEMENT_STATUS_FIELD, 200, "success", id=record_id)
