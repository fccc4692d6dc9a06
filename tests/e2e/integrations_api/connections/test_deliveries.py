"""Webhook calls through a connection: credentials applied, signature verifiable by the
public Standard Webhooks verifier, and each outcome reaching the connection's `error`."""

import asyncio
import base64
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from standardwebhooks import Webhook

from integrations_api.app import create_app
from shared.config import Config
from support.api import Api, Tenant
from support.waiting import eventually

BASE = "/v2/integrations/webhook"
WHSEC = "whsec_" + base64.b64encode(b"a shared secret of the backend").decode()


class VerifyingBackend:
    """Answers only calls whose signature, header and credentials are right."""

    def __init__(self, secret: str | bytes) -> None:
        self.verifier = Webhook(secret)
        self.status = 200
        self.calls: list[dict[str, str]] = []

    async def handle(self, request: web.Request) -> web.Response:
        data = await request.read()
        self.calls.append(dict(request.headers))
        self.verifier.verify(data, dict(request.headers))
        assert request.headers["X-Team"] == "pizza"
        assert request.headers["Authorization"] == "Basic " + base64.b64encode(b"bot:pw").decode()
        if self.status != 200:
            return web.json_response({}, status=self.status)
        return web.json_response({"responses": [{"type": "text", "message": "verified"}]})


async def start_backend(
    aiohttp_server: Any, secret: str | bytes
) -> tuple[VerifyingBackend, TestServer]:
    backend = VerifyingBackend(secret)
    app = web.Application()
    app.router.add_post("/hook", backend.handle)
    return backend, await aiohttp_server(app)


@pytest.fixture
async def integrations(aiohttp_client: Any, config: Config, bot_api: TestClient) -> TestClient:
    client: TestClient = await aiohttp_client(create_app(config))
    return client


async def setup(
    alice: Tenant,
    integrations: TestClient,
    url: str,
    token: str,
    webhook_is_id: bool,
    auth: bool = True,
) -> tuple[str, str, Api]:
    story_id = await alice.developer.create_story()
    connections = Api(integrations, alice.tokens.developer_token)
    credentials = (
        {"headers": {"X-Team": "pizza"}, "auth": {"username": "bot", "password": "pw"}}
        if auth
        else {}
    )
    created = await connections.post(
        BASE, {"storyId": story_id, "name": "Orders", "url": url, "token": token, **credentials}
    )
    connection_id = created.body["id"]
    await alice.developer.create_interaction(
        story_id, "Track", userSays=["where is my order"],
        webhook=connection_id if webhook_is_id else url,
    )  # fmt: skip
    return story_id, connection_id, connections


async def ask(alice: Tenant, story_id: str) -> dict[str, Any]:
    body = {"sessionId": "s", "storyId": story_id, "query": "where is my order"}
    return dict((await alice.public.ok("POST", "/query", body))["result"])


@pytest.mark.parametrize(("secret", "webhook_is_id"), [(WHSEC, True), ("plain-token", False)])
async def test_a_call_through_a_connection_is_signed_and_carries_its_credentials(
    aiohttp_server: Any, integrations: TestClient, alice: Tenant, secret: str, webhook_is_id: bool
) -> None:
    verifier_secret: str | bytes = secret if secret.startswith("whsec_") else secret.encode()
    backend, server = await start_backend(aiohttp_server, verifier_secret)
    story_id, _, _ = await setup(
        alice, integrations, str(server.make_url("/hook")), secret, webhook_is_id
    )

    async def answered_by_backend() -> dict[str, Any] | None:
        result = await ask(alice, story_id)
        return result if result["source"] == "webhook" else None

    result = await eventually(answered_by_backend)
    assert result["fulfillment"][-1]["message"] == "verified"
    assert {"webhook-id", "webhook-timestamp", "webhook-signature"} <= {
        h.lower() for h in backend.calls[-1]
    }


async def answer_500(request: web.Request) -> web.StreamResponse:
    return web.json_response({}, status=500)


async def answer_late(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(4)
    return web.json_response({})


async def answer_html(request: web.Request) -> web.StreamResponse:
    return web.Response(text="<html>")


async def answer_bad_goto(request: web.Request) -> web.StreamResponse:
    button = {"type": "goto", "title": "Menu", "value": "x" * 36}
    return web.json_response(
        {"responses": [{"type": "quickReplies", "title": "t", "buttons": [button]}]}
    )


async def answer_redirect(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/ok")


async def answer_ok(request: web.Request) -> web.StreamResponse:
    return web.json_response({"responses": [{"type": "text", "message": "fine"}]})


@pytest.mark.parametrize(
    ("failing", "reason"),
    [
        (answer_500, "HTTP 500"),
        (answer_late, "timeout after 3000 ms"),
        (answer_html, "answer is not JSON"),
        (answer_bad_goto, "responses[0].buttons[0].value: not a UUID v4"),
        (answer_redirect, "HTTP 302"),
        ("http://127.0.0.1:9/closed", "cannot connect"),
        ("http://no-such-host.invalid/hook", "cannot connect"),
    ],
    ids=["http-500", "timeout", "not-json", "bad-goto", "redirect", "refused", "no-dns"],
)
async def test_every_failed_delivery_reaches_the_connection_and_a_success_clears_it(
    aiohttp_server: Any, integrations: TestClient, alice: Tenant, failing: Any, reason: str
) -> None:
    app = web.Application()
    app.router.add_post("/ok", answer_ok)
    if callable(failing):
        app.router.add_post("/fail", failing)
    backend: TestServer = await aiohttp_server(app)
    failing_url = str(backend.make_url("/fail")) if callable(failing) else failing
    story_id, connection_id, connections = await setup(
        alice, integrations, failing_url, WHSEC, webhook_is_id=True, auth=False
    )

    async def error_shown() -> str | None:
        result = await ask(alice, story_id)
        assert result["source"] == "agent"
        error = (await connections.ok("GET", f"{BASE}/{connection_id}"))["error"]
        return str(error) if error else None

    assert (await eventually(error_shown, seconds=10.0)).startswith(reason)
    await connections.ok(
        "PUT", f"{BASE}/{connection_id}", {"name": "Orders", "url": str(backend.make_url("/ok"))}
    )

    async def cleared() -> bool:
        result = await ask(alice, story_id)
        read = await connections.ok("GET", f"{BASE}/{connection_id}")
        return result["source"] == "webhook" and read["error"] is None

    await eventually(cleared, seconds=10.0)  # a call to the old url may still take 3 s


async def test_a_webhook_may_name_only_a_connection_of_its_own_story(
    integrations: TestClient, alice: Tenant, bob: Tenant
) -> None:
    story_id, connection_id, connections = await setup(
        alice, integrations, "https://hooks.test/own", "t", webhook_is_id=True
    )
    other_story = await alice.developer.create_story("Other")
    elsewhere = await connections.post(
        BASE, {"storyId": other_story, "name": "Else", "url": "https://hooks.test/else"}
    )
    bobs_story = await bob.developer.create_story()
    bobs = await Api(integrations, bob.tokens.developer_token).post(
        BASE, {"storyId": bobs_story, "name": "Bob", "url": "https://hooks.test/bob"}
    )
    path = f"/stories/{story_id}/interactions"
    for webhook in (elsewhere.body["id"], bobs.body["id"], "0" * 24):
        refused = await alice.developer.post(path, {"name": "Hook", "webhook": webhook})
        assert refused.error == (400, "validation_error"), webhook
        assert refused.body["status"]["errors"] == {
            "webhook": [f"no webhook connection {webhook} belongs to this story"]
        }
    listed = await alice.developer.ok("GET", path)
    assert [i["name"] for i in listed] == ["Welcome", "Fallback", "Track"]
    track = listed[2]["id"]
    moved = await alice.developer.put(f"{path}/{track}", {"webhook": elsewhere.body["id"]})
    assert moved.error == (400, "validation_error")
    await alice.developer.ok("PUT", f"{path}/{track}", {"name": "Track order"})
    assert (await alice.developer.ok("GET", f"{path}/{track}"))["webhook"] == connection_id
