"""Two bot-api processes answer one session at once and lose no update."""

import asyncio
import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from shared.config import Config
from shared.embedded import free_port, start_service
from support.api import Tenant


@pytest.fixture
def second_bot_api(config: Config, tmp_path: Path) -> Iterator[str]:
    own_port = dataclasses.replace(config, bot_api_port=free_port())
    server = start_service(
        "bot_api", own_port.bot_api_port, {**os.environ, **own_port.as_env()}, tmp_path
    )
    yield server.url
    server.stop()


async def test_fifty_queries_split_over_two_processes_lose_no_parameter(
    alice: Tenant, second_bot_api: str
) -> None:
    await alice.developer.create_story()
    headers = {"Authorization": f"Bearer {alice.tokens.public_key}"}

    async def to_second(session: aiohttp.ClientSession, index: int) -> int:
        body = {"sessionId": "shared", "trigger": "welcome", "parameters": {f"p{index}": index}}
        async with session.post(f"{second_bot_api}/query", json=body, headers=headers) as reply:
            return reply.status

    async def to_first(index: int) -> int:
        body = {"sessionId": "shared", "trigger": "welcome", "parameters": {f"p{index}": index}}
        return (await alice.public.post("/query", body)).status

    async with aiohttp.ClientSession() as session:
        statuses = await asyncio.gather(
            *(to_second(session, i) if i % 2 else to_first(i) for i in range(50))
        )
    assert set(statuses) == {200}
    final = await alice.public.post("/query", {"sessionId": "shared", "trigger": "welcome"})
    assert final.body["result"]["parameters"] == {f"p{i}": i for i in range(50)}
