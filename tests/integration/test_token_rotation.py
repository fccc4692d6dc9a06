"""A rotated token stops working in every process of both services within a second: the
accounts command announces the rotation over NATS and each process forgets the
principals it had cached."""

import asyncio
import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from shared.auth import AccountRepository
from shared.config import Config
from tools.embedded import ServerProcess, free_port, start_service


@pytest.fixture
def processes(config: Config, tmp_path: Path) -> Iterator[list[tuple[str, str]]]:
    """Two bot-api processes and one integrations-api: (base url, a path the developer
    token may read) for each."""
    started: list[ServerProcess] = []
    targets: list[tuple[str, str]] = []
    try:
        for module, path in (
            ("bot_api", "/stories"),
            ("bot_api", "/stories"),
            ("integrations_api", "/v2/integrations/webhook"),
        ):
            own = dataclasses.replace(
                config, bot_api_port=free_port(), integrations_api_port=free_port()
            )
            port = own.bot_api_port if module == "bot_api" else own.integrations_api_port
            log_dir = tmp_path / f"{module}-{len(started)}"
            log_dir.mkdir()
            started.append(start_service(module, port, {**os.environ, **own.as_env()}, log_dir))
            targets.append((started[-1].url, path))
        yield targets
    finally:
        for server in started:
            server.stop()


async def test_the_old_tokens_stop_working_everywhere_within_a_second(
    config: Config, accounts: AccountRepository, processes: list[tuple[str, str]]
) -> None:
    old = await accounts.create("rotating")

    async with aiohttp.ClientSession() as session:

        async def status(url: str, token: str) -> int:
            headers = {"Authorization": f"Bearer {token}"}
            async with session.get(url, headers=headers) as reply:
                return reply.status

        async def query_status(base: str, token: str) -> int:
            headers = {"Authorization": f"Bearer {token}"}
            body = {"sessionId": "s", "trigger": "welcome"}
            async with session.post(f"{base}/query", json=body, headers=headers) as reply:
                return reply.status

        for base, path in processes:
            assert await status(base + path, old.developer_token) == 200
        for base, _ in processes[:2]:
            assert await query_status(base, old.public_key) == 404  # known key, no story yet

        rotate = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "bot_api", "accounts", "rotate", "rotating", "--json"],
            env={**os.environ, **config.as_env()},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert rotate.returncode == 0, rotate.stderr
        assert "did not take the rotation" not in rotate.stderr
        rotated = time.monotonic()

        async def all_refused() -> bool:
            developer = [await status(b + p, old.developer_token) for b, p in processes]
            public = [await query_status(b, old.public_key) for b, _ in processes[:2]]
            return set(developer) == set(public) == {401}

        while not await all_refused():
            assert time.monotonic() - rotated < 1.0, "an old token still works somewhere"
            await asyncio.sleep(0.05)
