"""integrations-api's changes in the account's audit log (docs/teams.md "Audit log"),
read through bot-api's `GET /audit`: never a secret, and no change without its record."""

from typing import Any

from aiohttp.test_utils import TestClient

from integrations_api.app import create_app
from shared import mongo
from shared.config import Config
from support.api import Api, Tenant

BASE = "/v2/integrations/webhook"
SECRETS = {
    "token": "whsec_c2VjcmV0LXZhbHVl",
    "headers": {"X-Api-Key": "key-that-must-not-leak"},
    "auth": {"username": "bot", "password": "pw-that-must-not-leak"},
}


async def integrations(aiohttp_client: Any, config: Config) -> Api:
    client: TestClient = await aiohttp_client(create_app(config))
    return Api(client, None)


async def test_connection_changes_are_recorded_without_their_secrets(
    aiohttp_client: Any, config: Config, alice: Tenant
) -> None:
    story_id = await alice.developer.create_story("Pizza")
    api = (await integrations(aiohttp_client, config)).as_token(alice.tokens.developer_token)
    fields = {"storyId": story_id, "name": "Orders", "url": "https://h.test/o", **SECRETS}
    made = await api.post(BASE, fields)
    connection_id = made.body["id"]
    renamed = {"name": "Renamed", "url": "https://h.test/p", **SECRETS}
    await api.ok("PUT", f"{BASE}/{connection_id}", renamed)
    await api.ok("DELETE", f"{BASE}/{connection_id}")

    items = (await alice.developer.ok("GET", f"/audit?story={story_id}"))["items"]

    assert [i["kind"] for i in items] == [
        "connection.delete",
        "connection.update",
        "connection.create",
        "story.create",
    ]
    assert {i["target"] for i in items[:3]} == {connection_id}
    assert items[2]["summary"] == (
        'name: "Orders"; url; token; headers.X-Api-Key; auth.username; auth.password; '
        f'storyId: "{story_id}"'
    )
    text = str(items)
    for secret in ("whsec_", "key-that-must-not-leak", "pw-that-must-not-leak", "h.test"):
        assert secret not in text


async def test_a_connection_whose_record_cannot_be_written_is_not_made(
    aiohttp_client: Any, config: Config, alice: Tenant
) -> None:
    story_id = await alice.developer.create_story("Pizza")
    api = (await integrations(aiohttp_client, config)).as_token(alice.tokens.developer_token)
    client = mongo.open_client(config.mongodb_url)
    try:
        await client[config.accounts_database]["audit"].create_index("accountId", unique=True)
    finally:
        await client.close()

    reply = await api.post(BASE, {"storyId": story_id, "name": "O", "url": "https://h.test/o"})

    assert reply.error == (503, "unavailable")
    assert "audit log could not record this change" in reply.details
    assert await api.ok("GET", BASE) == []
