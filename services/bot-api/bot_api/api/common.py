from typing import Any

from aiohttp import web

from shared.endpoints import principal_of
from shared.envelope import envelope

MANAGEMENT_STATUS_FIELD = "errorType"


def account_of(request: web.Request) -> str:
    return principal_of(request).account_id


def success() -> dict[str, Any]:
    return envelope(MANAGEMENT_STATUS_FIELD, 200, "success")


def created(record_id: str) -> dict[str, Any]:
    return envelope(MANAGEMENT_STATUS_FIELD, 200, "success", id=record_id)
