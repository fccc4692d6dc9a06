"""A throwaway stack for measuring: embedded nx-27017 and nats-server, bot-api served
as its own process, and an account to call it with; and three bot-api replicas on one
set of databases (the benches and tests of what holds across replicas)."""

import asyncio
import contextlib
import dataclasses
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from pymongo import MongoClient

from shared import mongo
from shared.auth import AccountRepository, IssuedTokens
from shared.config import Config
from tools.embedded import ServerProcess, free_port, start_mongo, start_nats, start_service


@dataclass(frozen=True)
class Stack:
    config: Config
    url: str
    tokens: IssuedTokens
    directory: Path
    bot_api: ServerProcess
    nats: ServerProcess


async def create_account(
    config: Config, name: str, limits: dict[str, float | None] | None = None
) -> IssuedTokens:
    """An account, with `limits` of its own (`accounts limits`, by Config field name)."""
    client = mongo.open_client(config.mongodb_url)
    try:
        accounts = AccountRepository(client[config.accounts_database])
        await accounts.ensure_indexes()
        tokens = await accounts.create(name)
        if limits:
            await accounts.set_limits(name, limits)
        return tokens
    finally:
        await client.close()


def serve(config: Config, directory: Path, module: str = "bot_api") -> ServerProcess:
    return start_service(module, config.bot_api_port, _env(config), directory)


def _env(config: Config) -> dict[str, str]:
    return {**os.environ, **config.as_env()}


@contextlib.contextmanager
def running_stack(name: str = "bench", semantic_matching: bool = True) -> Iterator[Stack]:
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as temporary:
        directory = Path(temporary)
        database = start_mongo(directory / "mongo", directory)
        nats = start_nats(directory / "nats", directory)
        config = Config(
            mongodb_url=database.url,
            nats_url=nats.url,
            database_prefix=name,
            bot_api_port=free_port(),
            query_rate=0,  # a benchmark measures throughput, not the rate limits
            query_client_rate=0,  # wrk's 64 connections come from one address
            query_session_rate=0,
            management_rate=0,
            semantic_matching=semantic_matching,
        )
        bot_api = None
        try:
            tokens = asyncio.run(create_account(config, name))
            bot_api = serve(config, directory)
            url = f"http://127.0.0.1:{config.bot_api_port}"
            yield Stack(config, url, tokens, directory, bot_api, nats)
        finally:
            if bot_api is not None:
                bot_api.stop()
            nats.stop()
            database.stop()


REPLICAS = 3


@dataclass(frozen=True)
class Replicas:
    config: Config
    bot_apis: list[ServerProcess]
    integrations_api: ServerProcess | None

    @property
    def urls(self) -> list[str]:
        return [server.url for server in self.bot_apis]


@contextlib.contextmanager
def running_replicas(
    mongo_url: str, nats_url: str, directory: Path, integrations: bool = False, **settings: Any
) -> Iterator[Replicas]:
    """`REPLICAS` bot-api processes on one set of databases (a fresh prefix) and one
    NATS, with `settings` and no rate limit but those an account is given (and one
    integrations-api), until closed; their databases dropped after. They start one after
    the other: a child started from another thread would die with that thread
    (tools/embedded.py)."""
    config = Config(
        mongodb_url=mongo_url,
        nats_url=nats_url,
        database_prefix=f"r{uuid.uuid4().hex[:12]}",
        integrations_api_port=free_port(),
        query_rate=0,
        query_client_rate=0,
        query_session_rate=0,
        management_rate=0,
        auth_failure_rate=0,
        **settings,
    )
    started: list[ServerProcess] = []
    try:
        for replica in range(REPLICAS):
            own = dataclasses.replace(config, bot_api_port=free_port())
            logs = directory / f"bot-api-{replica}"
            logs.mkdir()
            started.append(start_service("bot_api", own.bot_api_port, _env(own), logs))
        integrations_api = None
        if integrations:
            port = config.integrations_api_port
            integrations_api = start_service("integrations_api", port, _env(config), directory)
            started.append(integrations_api)
        yield Replicas(config, started[:REPLICAS], integrations_api)
    finally:
        for server in started:
            server.process.terminate()  # all at once: each stops in its own time
        for server in reversed(started):
            server.stop()
        with MongoClient(mongo_url) as client:
            for name in (
                config.accounts_database,
                config.bot_database,
                config.integrations_database,
            ):
                client.drop_database(name)


@contextlib.asynccontextmanager
async def served(app: web.Application, port: int) -> AsyncIterator[None]:
    """`app` on 127.0.0.1:`port` while the block runs (a platform's stand-in, a webhook's
    backend)."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield
    finally:
        await runner.cleanup()
