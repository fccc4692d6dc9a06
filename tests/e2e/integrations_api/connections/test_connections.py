"""The v2 webhook-connection API, with bot-api answering story look-ups over NATS."""

import asyncio
import dataclasses
import re
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from openapi_spec_validator import validate

from integrations_api.app import create_app
from shared.auth import AccountRepository
from shared.config import Config
from shared.pages import MAX_PAGE
from support.api import Api, Tenant
from support.waiting import eventually

BASE = "/v2/integrations/webhook"


@pytest.fixture
async def integrations(aiohttp_client: Any, config: Config, bot_api: TestClient) -> TestClient:
    """integrations-api beside a running bot-api (the `bot_api` fixture) on one NATS."""
    client: TestClient = await aiohttp_client(create_app(config))
    return client


def connections_api(integrations: TestClient, tenant: Tenant) -> Api:
    return Api(integrations, tenant.tokens.developer_token)


@pytest.fixture
async def story_id(alice: Tenant) -> str:
    return await alice.developer.create_story("Pizza")


def connection(story_id: str, **fields: Any) -> dict[str, Any]:
    return {"storyId": story_id, "name": "Orders backend", "url": "https://hooks.test/o", **fields}


async def test_create_read_list_update_delete(
    integrations: TestClient, alice: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    secrets = {
        "token": "whsec_c2VjcmV0",
        "headers": {"X-Team": "pizza"},
        "auth": {"username": "bot", "password": "pw"},
    }
    reply = await api.post(BASE, connection(story_id, **secrets))
    assert reply.status == 201
    assert reply.body["status"] == {"code": 201, "type": "created"}
    connection_id = reply.body["id"]
    assert re.fullmatch(r"[0-9a-f]{24}", connection_id)

    single = await api.ok("GET", f"{BASE}/{connection_id}")
    assert single["story"] == {"id": story_id, "name": "Pizza"}
    assert (single["name"], single["url"], single["error"]) == (
        "Orders backend",
        "https://hooks.test/o",
        None,
    )
    assert {k: single[k] for k in secrets} == secrets
    listed = await api.ok("GET", BASE)
    assert [c["id"] for c in listed] == [connection_id]
    assert not {"token", "headers", "auth"} & set(listed[0])
    assert set(listed[0]) == {"id", "story", "name", "url", "error", "createdAt", "updatedAt"}

    await api.ok(
        "PUT", f"{BASE}/{connection_id}", {"name": "Renamed", "url": "http://127.0.0.1:9/h"}
    )
    updated = await api.ok("GET", f"{BASE}/{connection_id}")
    assert (updated["name"], updated["url"]) == ("Renamed", "http://127.0.0.1:9/h")
    assert {k: updated[k] for k in secrets} == secrets  # left out: kept
    assert updated["updatedAt"] >= single["updatedAt"]
    await api.ok("PUT", f"{BASE}/{connection_id}", {**updated, "token": None, "auth": None})
    cleared = await api.ok("GET", f"{BASE}/{connection_id}")
    assert (cleared["token"], cleared["auth"], cleared["headers"]) == (
        None,
        None,
        secrets["headers"],
    )
    deleted = await api.ok("DELETE", f"{BASE}/{connection_id}")
    assert deleted["status"] == {"code": 200, "type": "success"}
    assert (await api.get(f"{BASE}/{connection_id}")).error == (404, "not_found")


async def test_the_story_must_be_one_of_the_account(
    integrations: TestClient, alice: Tenant, bob: Tenant, story_id: str
) -> None:
    attempts = [
        (connections_api(integrations, bob), story_id),
        (connections_api(integrations, alice), "0" * 24),
    ]
    for api, target in attempts:
        reply = await api.post(BASE, connection(target))
        assert reply.error == (400, "validation_error")
        assert "storyId" in reply.body["status"]["errors"]
        assert await api.ok("GET", BASE) == []


async def test_without_bot_api_nothing_is_stored_and_the_answer_is_503(
    aiohttp_client: Any, config: Config, alice: Tenant, story_id: str
) -> None:
    lonely: TestClient = await aiohttp_client(create_app(config))
    api = connections_api(lonely, alice)
    await alice.developer.client.close()  # bot-api stops: nobody answers story look-ups
    reply = await api.post(BASE, connection(story_id))
    assert reply.error == (503, "unavailable")
    assert await api.ok("GET", BASE) == []


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "n" * 129}, "name"),
        ({"url": "u" * 1025}, "url"),
        ({"url": "not a url"}, "url"),
        ({"token": ""}, "token"),
        ({"token": "t" * 1025}, "token"),
        ({"token": "whsec_not base64!"}, "token"),
        ({"token": "whsec_"}, "token"),
        ({"token": "whsec_c2Vjc"}, "token"),
        ({"headers": {}}, "headers"),
        ({"headers": {f"X-{i}": "v" for i in range(11)}}, "headers"),
        ({"headers": {"Content-Type": "text/plain"}}, "headers"),
        ({"headers": {"X-Bad": "line\nbreak"}}, "headers"),
        ({"headers": {"X-Bad": "a\x01b"}}, "headers"),
        ({"headers": {"X-Bad": "a\x7fb"}}, "headers"),
        ({"headers": {"bad name": "v"}}, "headers"),
        ({"auth": {"username": "bot"}}, "auth"),
        ({"auth": {"username": "bot:1", "password": "p"}}, "auth"),
        ({"auth": {"username": "u" * 1025, "password": "p"}}, "auth"),
        ({"storyId": "abc"}, "storyId"),
        ({"storyId": "Z" * 24}, "storyId"),
        ({"colour": "red"}, "colour"),
    ],
)
async def test_each_limit_is_enforced_and_nothing_is_stored(
    integrations: TestClient, alice: Tenant, story_id: str, fields: dict[str, Any], field: str
) -> None:
    api = connections_api(integrations, alice)
    reply = await api.post(BASE, connection(story_id, **fields))
    assert reply.error == (400, "validation_error")
    assert field in reply.body["status"]["errors"]
    assert await api.ok("GET", BASE) == []


async def test_the_maximum_of_each_field_is_accepted(
    integrations: TestClient, alice: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    url = "https://hooks.test/" + "p" * (1024 - len("https://hooks.test/"))
    fields = {
        "name": "n" * 128,
        "url": url,
        "token": "t" * 1024,
        "headers": {f"X-{i}": "v" * 1024 for i in range(10)},
        "auth": {"username": "u" * 1024, "password": "p" * 1024},
    }
    reply = await api.post(BASE, connection(story_id, **fields))
    assert reply.status == 201, reply.body
    stored = await api.ok("GET", f"{BASE}/{reply.body['id']}")
    assert {k: stored[k] for k in fields} == fields


async def test_an_update_to_a_token_with_no_usable_key_is_refused_and_keeps_the_stored_one(
    integrations: TestClient, alice: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    connection_id = (await api.post(BASE, connection(story_id, token="whsec_c2VjcmV0"))).body["id"]
    path = f"{BASE}/{connection_id}"
    reply = await api.put(path, {"name": "x", "url": "https://h.test", "token": "whsec_c2V*"})
    assert reply.error == (400, "validation_error")
    assert reply.body["status"]["errors"] == {
        "token": ["After whsec_ a token must be base64 of its key (A-Z, a-z, 0-9, +, /)."]
    }
    assert (await api.ok("GET", path))["token"] == "whsec_c2VjcmV0"


async def test_updates_take_no_story_and_only_the_owner_sees_a_connection(
    integrations: TestClient, alice: Tenant, bob: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    connection_id = (await api.post(BASE, connection(story_id))).body["id"]
    path = f"{BASE}/{connection_id}"
    reply = await api.put(path, {"name": "x", "url": "https://h.test", "storyId": story_id})
    assert reply.error == (400, "validation_error")
    intruder = connections_api(integrations, bob)
    for method, body in (
        ("GET", None),
        ("PUT", {"name": "x", "url": "https://h.test"}),
        ("DELETE", None),
    ):
        reply = (
            await intruder.call(method, path, body) if body else await intruder.call(method, path)
        )
        assert reply.error == (404, "not_found")
    assert await intruder.ok("GET", BASE) == []
    for bad in ("nope", "0" * 24, "x" * 24):
        assert (await api.get(f"{BASE}/{bad}")).error == (404, "not_found")
    assert (await api.ok("GET", path))["name"] == "Orders backend"


async def test_tokens_other_than_the_developer_token_are_refused(
    integrations: TestClient, alice: Tenant
) -> None:
    public = Api(integrations, alice.tokens.public_key)
    assert (await public.get(BASE)).error == (403, "forbidden")
    assert (await public.as_token(None).get(BASE)).error == (401, "unauthorized")


async def test_the_openapi_document_lists_the_connection_api(integrations: TestClient) -> None:
    async with integrations.get("/openapi.json") as response:
        document = await response.json()
    validate(document)
    assert set(document["paths"]) >= {BASE, BASE + "/{id}"}


async def test_connections_follow_their_story_renamed_then_deleted(
    integrations: TestClient, alice: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    connection_id = (await api.post(BASE, connection(story_id))).body["id"]
    other_story = await alice.developer.create_story("Other")
    kept = (await api.post(BASE, connection(other_story))).body["id"]
    await alice.developer.ok("PUT", f"/stories/{story_id}", {"name": "Pasta", "description": ""})

    async def renamed() -> bool:
        read = await api.ok("GET", f"{BASE}/{connection_id}")
        return bool(read["story"]["name"] == "Pasta")

    await eventually(renamed)
    await alice.developer.ok("DELETE", f"/stories/{story_id}")

    async def deleted() -> bool:
        return (await api.get(f"{BASE}/{connection_id}")).status == 404

    await eventually(deleted)
    assert [c["id"] for c in await api.ok("GET", BASE)] == [kept]


async def test_a_create_retried_with_its_idempotency_key_is_stored_once(
    integrations: TestClient, alice: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    key = {"Idempotency-Key": "c-1"}
    first = await api.call("POST", BASE, connection(story_id), headers=key)
    again = await api.call("POST", BASE, connection(story_id), headers=key)
    assert first.status == again.status == 201
    assert again.body == first.body
    listed = (await api.call("GET", BASE)).body
    assert [c["id"] for c in listed] == [first.body["id"]]
    reused = await api.call("POST", BASE, connection(story_id, name="Other"), headers=key)
    assert reused.error == (409, "conflict")


async def test_concurrent_creates_sharing_a_key_store_one_connection_and_never_fail(
    integrations: TestClient, alice: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    key = {"Idempotency-Key": "raced"}
    replies = await asyncio.gather(
        *(api.call("POST", BASE, connection(story_id), headers=key) for _ in range(8))
    )
    assert {r.status for r in replies} <= {201, 409}, [(r.status, r.body) for r in replies]
    created = [r.body for r in replies if r.status == 201]
    assert created and all(body == created[0] for body in created)
    assert all("in progress" in r.details for r in replies if r.status == 409)
    listed = await api.ok("GET", BASE)
    assert [c["id"] for c in listed] == [created[0]["id"]]


async def test_a_plain_list_answers_every_connection_and_pages_when_asked(
    integrations: TestClient, alice: Tenant, story_id: str
) -> None:
    api = connections_api(integrations, alice)
    count = MAX_PAGE + 3
    created = [await api.post(BASE, connection(story_id, name=f"C{n}")) for n in range(count)]
    ids = [reply.body["id"] for reply in created]
    whole = await api.get(BASE)
    assert [c["id"] for c in whole.body] == ids
    assert whole.headers["X-Total-Count"] == str(count)
    page = await api.get(f"{BASE}?offset=200")
    assert [c["id"] for c in page.body] == ids[200:]
    assert [c["id"] for c in (await api.get(f"{BASE}?limit=2&offset=1")).body] == ids[1:3]
    for query in ("limit=" + "9" * 5000, "offset=" + "1" * 5000):
        reply = await api.get(f"{BASE}?{query}")
        assert reply.error == (400, "validation_error")
        assert reply.details.startswith(query.split("=")[0])


@pytest.fixture
def one_connection_config(config: Config) -> Config:
    return dataclasses.replace(config, quota_connections=1)


async def test_a_connection_past_the_accounts_quota_answers_409_naming_it(
    aiohttp_client: Any, one_connection_config: Config, bot_api: TestClient, alice: Tenant
) -> None:
    integrations = await aiohttp_client(create_app(one_connection_config))
    api = connections_api(integrations, alice)
    story_id = await alice.developer.create_story("Pizza")
    assert (await api.post(BASE, connection(story_id))).status == 201
    refused = await api.post(BASE, connection(story_id, name="Second"))
    assert refused.error == (409, "conflict")
    assert refused.body["status"]["errors"] == {"quota": "connections", "limit": 1}
    assert len(await api.ok("GET", BASE)) == 1


async def test_the_accounts_command_raises_one_accounts_connection_quota(
    aiohttp_client: Any,
    one_connection_config: Config,
    accounts: AccountRepository,
    bot_api: TestClient,
    alice: Tenant,
    bob: Tenant,
) -> None:
    await accounts.set_limits("alice", {"quota_connections": 2})
    integrations = await aiohttp_client(create_app(one_connection_config))
    story_ids = [await t.developer.create_story("Pizza") for t in (alice, bob)]
    for tenant, story_id, taken in ((alice, story_ids[0], 2), (bob, story_ids[1], 1)):
        api = connections_api(integrations, tenant)
        for number in range(taken):
            assert (await api.post(BASE, connection(story_id, name=f"C{number}"))).status == 201
        refused = await api.post(BASE, connection(story_id, name="One more"))
        assert refused.body["status"]["errors"] == {"quota": "connections", "limit": taken}
