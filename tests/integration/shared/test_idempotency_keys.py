"""IdempotencyKeys against the embedded MongoDB: a request claims its key before it
creates, so a second request with the key answers the first one's answer once it is
stored, a 409 while it is in flight, and a failed or abandoned create frees the key."""

import asyncio
from typing import Any

import pytest
from aiohttp.test_utils import make_mocked_request
from pymongo import AsyncMongoClient

from shared.config import Config
from shared.errors import Conflict
from shared.idempotency import HEADER, IdempotencyKeys

ACCOUNT = "a" * 24
BODY = {"name": "Once"}


@pytest.fixture
def keys(mongo_client: AsyncMongoClient, config: Config) -> IdempotencyKeys:
    return IdempotencyKeys(mongo_client[config.bot_database], budget_seconds=10)


def request_with_key() -> Any:
    return make_mocked_request("POST", "/stories", headers={HEADER: "k-1"})


async def answer(new_id: str | None) -> dict[str, Any]:
    return {"id": new_id}


async def test_a_second_request_is_a_409_while_the_first_creates_then_gets_its_answer(
    keys: IdempotencyKeys,
) -> None:
    creating, release = asyncio.Event(), asyncio.Event()

    async def slow_create(new_id: str | None) -> dict[str, Any]:
        creating.set()
        await release.wait()
        return {"id": new_id}

    first = asyncio.create_task(keys.once(request_with_key(), ACCOUNT, BODY, slow_create))
    await creating.wait()
    with pytest.raises(Conflict, match="in progress") as in_flight:
        await keys.once(request_with_key(), ACCOUNT, BODY, answer)
    assert in_flight.value.headers == {"Retry-After": "1"}
    release.set()
    made = await first
    assert await keys.once(request_with_key(), ACCOUNT, BODY, answer) == made
    with pytest.raises(Conflict, match="another body"):
        await keys.once(request_with_key(), ACCOUNT, {"name": "Other"}, answer)


async def test_a_failed_create_frees_its_key(keys: IdempotencyKeys) -> None:
    async def failing(new_id: str | None) -> dict[str, Any]:
        raise RuntimeError("the write failed")

    with pytest.raises(RuntimeError):
        await keys.once(request_with_key(), ACCOUNT, BODY, failing)
    made = await keys.once(request_with_key(), ACCOUNT, BODY, answer)
    assert made["id"] is not None


async def test_a_claim_left_by_a_request_that_never_answered_lapses_after_the_budget(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    keys = IdempotencyKeys(mongo_client[config.bot_database], budget_seconds=0.05)

    async def never(new_id: str | None) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("never answers")

    abandoned = asyncio.create_task(keys.once(request_with_key(), ACCOUNT, BODY, never))
    await asyncio.sleep(0.01)
    abandoned.cancel()
    await asyncio.sleep(0.1)
    made = await keys.once(request_with_key(), ACCOUNT, BODY, answer)
    assert made["id"] is not None
