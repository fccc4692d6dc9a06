"""Two bot-api processes answer one session at once and lose no update."""

import asyncio
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import aiohttp
import pytest

from shared.config import Config
from shared.embedded import free_port
from support.api import Tenant


@pytest.fixture
def second_bot_api(config: Config) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "MONGODB_URL": config.mongodb_url,
        "NATS_URL": config.nats_url,
        "DATABASE_PREFIX": config.database_prefix,
        "BOT_API_PORT": str(port),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "bot_api", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                break
        except OSError:
            assert time.monotonic() < deadline and process.poll() is None, "bot-api did not start"
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(10)


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
