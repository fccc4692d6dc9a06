"""Real servers for the whole session: nx-27017 (or MONGODB_URL) and nats-server.

Every test gets databases of its own (a fresh prefix), so tests never see each
other's data and need no cleanup order.
"""

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient
from pymongo import MongoClient

from bot_api.app import create_app
from shared import mongo
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api, Tenant
from support.pymongo_cancellation import close_sockets_of_cancelled_connects
from tools.embedded import start_mongo, start_nats

AiohttpClient = Callable[..., Awaitable[TestClient]]
LOOPBACK = ("127.0.0.0/8", "::1/128")  # webhook backends in tests run on loopback

close_sockets_of_cancelled_connects()


@pytest.fixture(scope="session")
def mongo_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if "MONGODB_URL" in os.environ:
        yield os.environ["MONGODB_URL"]
        return
    server = start_mongo("memory", tmp_path_factory.mktemp("nx-27017"))
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    directory: Path = tmp_path_factory.mktemp("nats")
    server = start_nats(directory / "jetstream", directory)
    yield server.url
    server.stop()


@pytest.fixture
def config(mongo_url: str, nats_url: str) -> Iterator[Config]:
    config = Config(
        mongodb_url=mongo_url,
        nats_url=nats_url,
        database_prefix=f"t{uuid.uuid4().hex[:12]}",
        webhook_allow=LOOPBACK,
        query_rate=0,  # tests need throughput; test_rate_limits turns them on
        query_client_rate=0,
        query_session_rate=0,
        management_rate=0,
        auth_failure_rate=0,
        semantic_matching=False,
    )
    yield config
    with MongoClient(mongo_url) as client:
        for name in (config.accounts_database, config.bot_database, config.integrations_database):
            client.drop_database(name)


@pytest.fixture
async def bot_api(aiohttp_client: AiohttpClient, config: Config) -> TestClient:
    return await aiohttp_client(create_app(config))


@pytest.fixture
async def accounts(config: Config) -> AsyncIterator[AccountRepository]:
    client = mongo.open_client(config.mongodb_url)
    repository = AccountRepository(client[config.accounts_database])
    await repository.ensure_indexes()
    yield repository
    await client.close()


async def _tenant(accounts: AccountRepository, client: TestClient, name: str) -> Tenant:
    tokens = await accounts.create(name)
    return Tenant(tokens, Api(client, tokens.developer_token), Api(client, tokens.public_key))


@pytest.fixture
async def alice(accounts: AccountRepository, bot_api: TestClient) -> Tenant:
    return await _tenant(accounts, bot_api, "alice")


@pytest.fixture
async def bob(accounts: AccountRepository, bot_api: TestClient) -> Tenant:
    return await _tenant(accounts, bot_api, "bob")


@pytest.fixture
def api(alice: Tenant) -> Api:
    """The developer-token client of one account: what most tests need."""
    return alice.developer


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The figures tests measured (`/healthz` p99 under attack, requests sent), so each
    run shows them (docs/reliability.md)."""
    figures = [
        f"{report.nodeid}: {name} = {value}"
        for report in terminalreporter.getreports("passed")
        for name, value in report.user_properties
    ]
    if figures:
        terminalreporter.section("figures measured")
        for line in figures:
            terminalreporter.line(line)
