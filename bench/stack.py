"""A throwaway stack for measuring: embedded nx-27017 and nats-server, bot-api served
as its own process, and an account to call it with."""

import asyncio
import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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


async def create_account(config: Config, name: str) -> IssuedTokens:
    client = mongo.open_client(config.mongodb_url)
    try:
        accounts = AccountRepository(client[config.accounts_database])
        await accounts.ensure_indexes()
        return await accounts.create(name)
    finally:
        await client.close()


def serve(config: Config, directory: Path, module: str = "bot_api") -> ServerProcess:
    return start_service(module, config.bot_api_port, {**os.environ, **config.as_env()}, directory)


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
