"""An imported story names its connections (never their ids or secrets): once a connection
of that name is made for it, the interactions that named it call it."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from integrations_api.app import create_app
from shared.config import Config
from support.api import Api, Tenant
from support.waiting import eventually
from support.walkthrough import pizza_story

BASE = "/v2/integrations/webhook"


@pytest.fixture
async def integrations(aiohttp_client: Any, config: Config, bot_api: TestClient) -> TestClient:
    """integrations-api beside a running bot-api (the `bot_api` fixture) on one NATS."""
    client: TestClient = await aiohttp_client(create_app(config))
    return client


async def connect(connections: Api, bot: Api, story_id: str, interaction: str) -> str:
    """A connection "Orders" for the story, set as the interaction's webhook."""
    body = {
        "storyId": story_id,
        "name": "Orders",
        "url": "https://hooks.test/o",
        "token": "whsec_c2VjcmV0",
    }
    connection_id = str((await connections.post(BASE, body)).body["id"])
    path = f"/stories/{story_id}/interactions/{interaction}"
    await bot.ok("PUT", path, {"webhook": connection_id})
    return connection_id


async def test_the_connection_travels_by_name_and_links_once_made(
    integrations: TestClient, alice: Tenant
) -> None:
    bot = alice.developer
    connections = Api(integrations, alice.tokens.developer_token)
    story_id = await pizza_story(bot)
    order = next(
        i["id"]
        for i in (await bot.story(story_id))["interactions"].values()
        if i["name"] == "Order"
    )
    await connect(connections, bot, story_id, order)

    async def exported_with_connection() -> dict[str, Any] | None:
        document = dict(await bot.ok("GET", f"/stories/{story_id}/export"))
        return document if document["interactions"][2].get("connection") == "Orders" else None

    first = await eventually(exported_with_connection)
    assert first["connections"] == ["Orders"] and "webhook" not in first["interactions"][2]
    assert "whsec" not in str(first)

    reply = await bot.post("/stories/import", first)
    assert reply.status == 200, reply.body
    assert reply.body["report"]["connections"] == [
        {"name": "Orders", "status": "missing", "interactions": ["order"]}
    ]
    new_id = reply.body["id"]
    assert await bot.ok("GET", f"/stories/{new_id}/export") == first
    new_order = next(i["id"] for i in reply.body["report"]["interactions"] if i["key"] == "order")
    path = f"/stories/{new_id}/interactions/{new_order}"
    assert (await bot.ok("GET", path))["webhook"] == ""

    body = {"storyId": new_id, "name": "Orders", "url": "https://hooks.test/o"}
    connection_id = (await connections.post(BASE, body)).body["id"]

    async def linked() -> bool:
        return bool((await bot.ok("GET", path))["webhook"] == connection_id)

    await eventually(linked)
    assert await bot.ok("GET", f"/stories/{new_id}/export") == first
