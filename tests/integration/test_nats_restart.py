"""NATS restarts in the middle of connection updates and failing deliveries; afterwards
both services hold the latest state, each delivery result applied in order."""

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot_api.app import create_app as create_bot_api
from integrations_api.app import create_app as create_integrations_api
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api
from support.waiting import eventually
from tools.embedded import start_nats

BASE = "/v2/integrations/webhook"


class RestartableNats:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.server = start_nats(directory / "jetstream", directory)
        self.url = self.server.url

    def stop(self) -> None:
        self.server.stop()

    def start_again(self) -> None:
        port = urlparse(self.url).port
        self.server = start_nats(self.directory / "jetstream", self.directory, port=port)


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[RestartableNats]:
    """Set up before the apps, so it is torn down after them."""
    server = RestartableNats(tmp_path)
    yield server
    server.stop()


async def test_after_a_nats_restart_both_services_hold_the_latest_state(
    nats: RestartableNats,
    aiohttp_client: Any,
    aiohttp_server: Any,
    config: Config,
    accounts: AccountRepository,
) -> None:
    own = dataclasses.replace(config, nats_url=nats.url)
    calls: dict[str, int] = {"/old": 0, "/new": 0}

    async def hook(request: web.Request) -> web.Response:
        calls[request.path] += 1
        if request.path == "/old":
            return web.json_response({}, status=500)
        return web.json_response({"responses": [{"type": "text", "message": "new"}]})

    backend_app = web.Application()
    backend_app.router.add_post("/old", hook)
    backend_app.router.add_post("/new", hook)
    backend: TestServer = await aiohttp_server(backend_app)
    bot: TestClient = await aiohttp_client(create_bot_api(own))
    integrations: TestClient = await aiohttp_client(create_integrations_api(own))
    tokens = await accounts.create("alice")
    developer = Api(bot, tokens.developer_token)
    public = Api(bot, tokens.public_key)
    connections = Api(integrations, tokens.developer_token)
    story_id = await developer.create_story()
    connection = {"name": "Orders", "url": str(backend.make_url("/old"))}
    connection_id = (await connections.post(BASE, {**connection, "storyId": story_id})).body["id"]
    await developer.create_interaction(
        story_id, "Track", userSays=["where is my order"], webhook=connection_id
    )
    query = {"sessionId": "s", "storyId": story_id, "query": "where is my order"}

    async def delivered_to_old() -> bool:
        await public.ok("POST", "/query", query)
        return calls["/old"] > 0

    await eventually(delivered_to_old, 5)

    nats.stop()
    updated = {"name": "Orders 2", "url": str(backend.make_url("/new"))}
    await connections.ok("PUT", f"{BASE}/{connection_id}", updated)
    during = await public.ok("POST", "/query", query)
    assert during["result"]["source"] == "agent"  # still the old url: the view waits
    nats.start_again()

    async def answered_by_new() -> bool:
        result = (await public.ok("POST", "/query", query))["result"]
        return result["source"] == "webhook"

    await eventually(answered_by_new, 15)

    async def error_cleared() -> bool:
        read = await connections.ok("GET", f"{BASE}/{connection_id}")
        return read["error"] is None and read["name"] == "Orders 2"

    await eventually(error_cleared, 5)
