"""Member tokens on integrations-api: a viewer reads a connection's credentials hidden;
a member narrowed to a story sees neither another story's connections nor its
channels."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from integrations_api.app import create_app
from shared.config import Config
from support.api import Api, Tenant

WEBHOOK = "/v2/integrations/webhook"
SECRETS = {
    "token": "whsec_c2VjcmV0",
    "headers": {"X-Team": "pizza"},
    "auth": {"username": "bot", "password": "pw"},
}


@pytest.fixture
async def integrations(aiohttp_client: Any, config: Config, bot_api: TestClient) -> TestClient:
    client: TestClient = await aiohttp_client(create_app(config))
    return client


async def member(api: Api, role: str, **more: Any) -> str:
    body = {"email": f"{role}@example.com", "name": role, "role": role, **more}
    created = await api.post("/account/members", body)
    assert created.status == 201, created.body
    issued = await api.post(f"/account/members/{created.body['id']}/tokens", {"name": "t"})
    token: str = issued.body["token"]
    return token


async def connect(api: Api, story_id: str) -> str:
    body = {"storyId": story_id, "name": "Orders", "url": "https://hooks.test/o", **SECRETS}
    reply = await api.post(WEBHOOK, body)
    assert reply.status == 201, reply.body
    return str(reply.body["id"])


async def test_a_viewer_reads_a_connection_without_its_secrets(
    integrations: TestClient, alice: Tenant
) -> None:
    story_id = await alice.developer.create_story("Pizza")
    owner = Api(integrations, alice.tokens.developer_token)
    connection_id = await connect(owner, story_id)
    viewer = Api(integrations, await member(alice.developer, "viewer"))
    read = await viewer.ok("GET", f"{WEBHOOK}/{connection_id}")
    assert "whsec_c2VjcmV0" not in str(read) and "pw" not in str(read) and "pizza" not in str(read)
    assert read["headers"] == {"X-Team": "********"} and read["auth"]["username"] == "bot"
    assert (await owner.ok("GET", f"{WEBHOOK}/{connection_id}"))["token"] == SECRETS["token"]
    assert (await viewer.delete(f"{WEBHOOK}/{connection_id}")).status == 403


async def test_a_member_narrowed_to_a_story_sees_only_its_connections(
    integrations: TestClient, alice: Tenant
) -> None:
    mine = await alice.developer.create_story("Mine")
    other = await alice.developer.create_story("Other")
    owner = Api(integrations, alice.tokens.developer_token)
    kept, hidden = await connect(owner, mine), await connect(owner, other)
    editor = Api(integrations, await member(alice.developer, "editor", stories=[mine]))
    listed = await editor.get(WEBHOOK)
    assert [c["id"] for c in listed.body] == [kept] and listed.headers["X-Total-Count"] == "1"
    for method in ("GET", "DELETE"):
        assert (await editor.call(method, f"{WEBHOOK}/{hidden}")).error == (404, "not_found")
    assert (
        await editor.post(WEBHOOK, {"storyId": other, "name": "x", "url": "https://a.test"})
    ).status == 404
    assert (await editor.get("/v2/integrations/channels")).body == []
    assert (await owner.get(f"{WEBHOOK}/{hidden}")).status == 200
