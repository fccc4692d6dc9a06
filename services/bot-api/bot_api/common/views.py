from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from shared.endpoints import principal_of
from shared.envelope import envelope
from shared.idempotency import object_id_from
from shared.keys import IDEMPOTENCY

MANAGEMENT_STATUS_FIELD = "errorType"


def account_of(request: web.Request) -> str:
    return principal_of(request).account_id


def success() -> dict[str, Any]:
    return envelope(MANAGEMENT_STATUS_FIELD, 200, "success")


def created(record_id: str) -> dict[str, Any]:
    return envelope(MANAGEMENT_STATUS_FIELD, 200, "success", id=record_id)


async def created_once(
    request: web.Request,
    body: Any,
    create: Callable[[str, str | None], Awaitable[str]],
    id_from: Callable[[bytes], str] = object_id_from,
) -> dict[str, Any]:
    """The answer of `create(account_id, new_id)`, made once per `Idempotency-Key`."""
    account_id = account_of(request)

    async def answer(new_id: str | None) -> dict[str, Any]:
        return created(await create(account_id, new_id))

    return await request.app[IDEMPOTENCY].once(request, account_id, body, answer, id_from)
