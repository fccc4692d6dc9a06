"""A throwaway stack for measuring: embedded nx-27017 and nats-server, bot-api served
as its own process, and an account to call it with."""

import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from shared import mongo
from shared.auth import AccountRepository, IssuedTokens
from shared.config import Config
from shared.embedded import free_port, start_mongo, start_nats


@dataclass(frozen=True)
class Stack:
    config: Config
    url: str
    tokens: IssuedTokens
    directory: Path


async def _account(config: Config, name: str) -> IssuedTokens:
    client = mongo.open_client(config.mongodb_url)
    try:
        accounts = AccountRepository(client[config.accounts_database])
        await accounts.ensure_indexes()
        return await accounts.create(name)
    finally:
        await client.close()


def serve(
    config: Config, module: str = "bot_api", extra: list[str] | None = None
) -> subprocess.Popen[bytes]:
    port = config.bot_api_port
    env = {
        **os.environ,
        "MONGODB_URL": config.mongodb_url,
        "NATS_URL": config.nats_url,
        "DATABASE_PREFIX": config.database_prefix,
        "BOT_API_PORT": str(port),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", module, *(extra or ["serve"])],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{module} did not start") from None
            time.sleep(0.1)


@contextlib.contextmanager
def running_stack(name: str = "bench") -> Iterator[Stack]:
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as temporary:
        directory = Path(temporary)
        database = start_mongo(directory / "mongo", directory)
        nats = start_nats(directory / "nats", directory)
        config = Config(
            mongodb_url=database.url,
            nats_url=nats.url,
            database_prefix=name,
            bot_api_port=free_port(),
        )
        bot_api = None
        try:
            tokens = asyncio.run(_account(config, name))
            bot_api = serve(config)
            yield Stack(config, f"http://127.0.0.1:{config.bot_api_port}", tokens, directory)
        finally:
            if bot_api is not None:
                bot_api.terminate()
                bot_api.wait(10)
            nats.stop()
            database.stop()
