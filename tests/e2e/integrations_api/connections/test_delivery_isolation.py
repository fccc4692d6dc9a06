"""Each delivery result reaches the connection it was made through, and no other: two
connections on one story (one backend answering 200, one 500) next to a failing
connection of a second account. Once, the embedded MongoDB ignored part of the filter
that records a result, and a failure showed on a neighbour or another account's
connection (docs/mongodb-compatibility.md)."""

import asyncio
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from integrations_api.app import create_app
from shared.config import Config
from support.api import Api, Tenant

BASE = "/v2/integrations/webhook"


async def answer_ok(request: web.Request) -> web.StreamResponse:
    return web.json_response({"responses": [{"type": "text", "message": "on its way"}]})


async def answer_500(request: web.Request) -> web.StreamResponse:
    return web.json_response({}, status=500)


async def connect(tenant: Tenant, connections: Api, story_id: str, name: str, url: str) -> str:
    """A connection and an interaction whose webhook is that connection, asked by `name`."""
    created = await connections.post(
        BASE, {"storyId": story_id, "name": name, "url": url, "token": "plain"}
    )
    assert created.status == 201, created.body
    await tenant.developer.create_interaction(
        story_id, name, userSays=[name.lower()], webhook=created.body["id"]
    )
    return str(created.body["id"])


async def ask(tenant: Tenant, story_id: str, query: str) -> str:
    body = {"sessionId": query, "storyId": story_id, "query": query}
    return str((await tenant.public.ok("POST", "/query", body))["result"]["source"])


async def test_each_delivery_result_lands_on_its_own_connection_only(
    aiohttp_client: Any,
    aiohttp_server: Any,
    config: Config,
    bot_api: TestClient,
    alice: Tenant,
    bob: Tenant,
) -> None:
    integrations = await aiohttp_client(create_app(config))
    backend_app = web.Application()
    backend_app.router.add_post("/ok", answer_ok)
    backend_app.router.add_post("/fail", answer_500)
    backend: TestServer = await aiohttp_server(backend_app)
    ok_url, fail_url = str(backend.make_url("/ok")), str(backend.make_url("/fail"))

    alices = Api(integrations, alice.tokens.developer_token)
    bobs = Api(integrations, bob.tokens.developer_token)
    alice_story = await alice.developer.create_story("Pizza")
    bob_story = await bob.developer.create_story("Pasta")
    track = await connect(alice, alices, alice_story, "Track", ok_url)
    pay = await connect(alice, alices, alice_story, "Pay", fail_url)
    bobs_pay = await connect(bob, bobs, bob_story, "Pay", fail_url)

    async def error_of(connections: Api, connection_id: str) -> Any:
        return (await connections.ok("GET", f"{BASE}/{connection_id}"))["error"]

    async def both_failures_recorded() -> bool:
        """Asks each webhook interaction again until the connection view has reached
        bot-api (until then /query answers without the webhook) and both failures show."""
        tracked = await ask(alice, alice_story, "track")
        await ask(alice, alice_story, "pay")
        await ask(bob, bob_story, "pay")
        errors = [await error_of(alices, pay), await error_of(bobs, bobs_pay)]
        return tracked == "webhook" and None not in errors

    deadline = asyncio.get_running_loop().time() + 15
    while not await both_failures_recorded():
        assert asyncio.get_running_loop().time() < deadline, "the failures never showed"
        await asyncio.sleep(0.1)

    assert await error_of(alices, pay) == "HTTP 500"
    assert await error_of(bobs, bobs_pay) == "HTTP 500"
    assert await error_of(alices, track) is None
