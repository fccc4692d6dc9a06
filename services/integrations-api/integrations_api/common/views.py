"""What the connection and channel APIs answer alike: the envelope's status field is
`type` (docs/api.md), and the caller's account."""

from typing import Any

from aiohttp import web

from shared.endpoints import principal_of
from shared.envelope import envelope

STATUS_FIELD = "type"


def account_of(request: web.Request) -> str:
    return principal_of(request).account_id


def success() -> dict[str, Any]:
    return envelope(STATUS_FIELD, 200, "success")


def created(record_id: str) -> dict[str, Any]:
    return {"id": record_id, **envelope(STATUS_FIELD, 201, "created")}
