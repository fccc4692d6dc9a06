"""An interaction's webhook (a URL) called from /query: what the backend receives, how
its answer joins the turn, and every way a delivery can fail."""

import asyncio
import dataclasses
import time
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot_api.app import create_app
from bot_api.connections.keys import CONNECTION_VIEW
from shared.auth import AccountRepository
from shared.config import Config
from shared.events import ConnectionChanged
from support.api import Api, Tenant

GOTO = "0b5a1c7e-6f1d-4c4b-9a57-2f7c6b1d9e10"
CARD = {
    "title": "Pizza",
    "subtitle": "Large",
    "imageUrl": "https://x.io/p.png",
    "buttons": [{"type": "phone", "title": "Call", "value": "+4930123"}],
}
GOOD_ANSWER = {
    "responses": [
        {"type": "text", "message": "Your order is #42"},
        {
            "type": "quickReplies",
            "title": "More?",
            "buttons": [
                {"type": "postback", "title": "Yes", "value": "yes"},
                {"type": "goto", "title": "Menu", "value": GOTO},
            ],
        },
        {"type": "cards", "elements": [CARD]},
    ],
    "attributes": {"order": "42"},
}
BAD_GOTO = {
    "responses": [
        {
            "type": "quickReplies",
            "title": "t",
            "buttons": [{"type": "goto", "title": "x", "value": "x" * 36}],
        }
    ]
}
BAD_DELAY = {"responses": [{"type": "text", "message": "hi", "delay": 50}]}
BAD_PHONE = {
    "responses": [
        {
            "type": "buttons",
            "title": "t",
            "buttons": [{"type": "phone", "title": "x", "value": "12345"}],
        }
    ]
}


class Backend:
    """A real HTTP backend on loopback that records what it receives."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.reply: Any = GOOD_ANSWER

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.received.append(await request.json())
        reply = self.reply
        return await reply(request) if callable(reply) else web.json_response(reply)


@pytest.fixture
async def backend(aiohttp_server: Any) -> tuple[Backend, TestServer]:
    recorder = Backend()
    app = web.Application()
    app.router.add_post("/hook", recorder.handle)
    app.router.add_post("/elsewhere", recorder.handle)
    return recorder, await aiohttp_server(app)


async def webhook_story(api: Api, url: str) -> str:
    story_id = await api.create_story()
    await api.create_interaction(
        story_id,
        "Track",
        userSays=["where is my order"],
        responses=[{"type": "text", "messages": ["Let me check."]}],
        webhook=url,
    )
    return story_id


async def ask(api: Api, story_id: str) -> dict[str, Any]:
    body = {"sessionId": "s", "storyId": story_id, "query": "where is my order",
            "parameters": {"default_name": "Ada"}}  # fmt: skip
    return dict(await api.ok("POST", "/query", body))


async def test_the_answer_follows_the_interactions_own_responses(
    alice: Tenant, backend: tuple[Backend, TestServer]
) -> None:
    recorder, server = backend
    story_id = await webhook_story(alice.developer, str(server.make_url("/hook")))
    result = (await ask(alice.public, story_id))["result"]
    assert result["source"] == "webhook"
    assert result["parameters"] == {"default_name": "Ada", "order": "42"}
    assert [i["type"] for i in result["fulfillment"]] == ["text", "text", "quickReply", "card"]
    assert result["fulfillment"][0] == {"type": "text", "message": "Let me check."}
    assert result["fulfillment"][1] == {
        "type": "text",
        "message": "Your order is #42",
        "delay": 1000,
    }
    assert result["fulfillment"][2]["buttons"][1] == {
        "title": "Menu",
        "postback": GOTO,
        "type": "goto",
    }
    sent = recorder.received[0]
    assert sent["chatId"] == sent["sessionId"] == "s"
    assert sent["node"]["type"] == "WEBHOOK" and sent["node"]["name"] == "Track"
    assert sent["blockId"] == result["interaction"]["id"]
    assert sent["userAttributes"] == {"default_name": "Ada"}
    assert sent["result"]["resolvedQuery"] == "where is my order"
    again = (await ask(alice.public, story_id))["result"]
    assert again["parameters"]["order"] == "42"


async def test_placeholders_in_an_answer_are_filled_like_stored_responses(
    alice: Tenant, backend: tuple[Backend, TestServer]
) -> None:
    recorder, server = backend
    recorder.reply = {
        "responses": [
            {"type": "text", "message": "{{default_name}}, order {{order}} left at {{eta}}."}
        ],
        "attributes": {"order": "42"},
    }
    story_id = await webhook_story(alice.developer, str(server.make_url("/hook")))
    result = (await ask(alice.public, story_id))["result"]
    assert result["fulfillment"][1]["message"] == "Ada, order 42 left at."


async def slow(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(4)
    return web.json_response(GOOD_ANSWER)


async def redirect(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/elsewhere")


async def huge(request: web.Request) -> web.StreamResponse:
    return web.json_response({"responses": [], "attributes": {"x": "y" * 70_000}})


async def not_json(request: web.Request) -> web.StreamResponse:
    return web.Response(text="<html>oops</html>")


async def server_error(request: web.Request) -> web.StreamResponse:
    return web.json_response({"error": "boom"}, status=500)


@pytest.mark.parametrize(
    "reply",
    [slow, redirect, huge, not_json, server_error, BAD_GOTO, BAD_DELAY, BAD_PHONE],
    ids=[
        "timeout",
        "redirect",
        "over-64KiB",
        "not-json",
        "http-500",
        "bad-goto",
        "bad-delay",
        "bad-phone",
    ],
)
async def test_a_failed_delivery_still_answers_with_the_interactions_own_responses(
    alice: Tenant, backend: tuple[Backend, TestServer], reply: Any
) -> None:
    recorder, server = backend
    recorder.reply = reply
    story_id = await webhook_story(alice.developer, str(server.make_url("/hook")))
    started = time.monotonic()
    result = (await ask(alice.public, story_id))["result"]
    assert time.monotonic() - started < 3.5
    assert result["source"] == "agent"
    assert result["fulfillment"] == [{"type": "text", "message": "Let me check."}]
    assert "order" not in result["parameters"]
    assert len(recorder.received) == 1


@pytest.mark.parametrize(
    "stored",
    [
        {"token": "whsec_not base64!"},
        {"token": "whsec_"},
        {"token": "whsec_c2Vjc"},
        {"headers": {"X-Team": "a\x01b"}},
        {"headers": {"X-Team": "a\x7fb"}},
        {"auth": {"username": "bot:1", "password": "pw"}},
    ],
)
async def test_a_stored_connection_that_cannot_sign_or_send_is_a_failed_delivery_not_a_500(
    bot_api: TestClient, alice: Tenant, backend: tuple[Backend, TestServer], stored: Any
) -> None:
    """A connection written before integrations-api checked its token and header values
    may hold a token with no usable key or a header no client sends."""
    recorder, server = backend
    url = str(server.make_url("/hook"))
    story_id = await webhook_story(alice.developer, url)
    connection = ConnectionChanged(
        "0" * 23 + "1", alice.tokens.account_id, story_id, "Legacy", url, 1, **stored
    )
    await bot_api.app[CONNECTION_VIEW].apply(connection)
    result = (await ask(alice.public, story_id))["result"]
    assert result["source"] == "agent"
    assert result["fulfillment"] == [{"type": "text", "message": "Let me check."}]
    assert recorder.received == []


async def test_a_refused_connection_still_answers(alice: Tenant) -> None:
    story_id = await webhook_story(alice.developer, "http://127.0.0.1:9/hook")
    result = (await ask(alice.public, story_id))["result"]
    assert result["fulfillment"] == [{"type": "text", "message": "Let me check."}]


async def test_without_the_allow_list_loopback_and_private_addresses_are_refused(
    aiohttp_client: Any,
    config: Config,
    accounts: AccountRepository,
    backend: tuple[Backend, TestServer],
) -> None:
    recorder, server = backend
    guarded: TestClient = await aiohttp_client(
        create_app(dataclasses.replace(config, webhook_allow=()))
    )
    tokens = await accounts.create("guarded")
    api = Api(guarded, tokens.developer_token)
    for url in (
        str(server.make_url("/hook")),
        f"http://localhost:{server.port}/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/hook",
    ):
        story_id = await webhook_story(api, url)
        result = (await ask(Api(guarded, tokens.public_key), story_id))["result"]
        assert result["fulfillment"] == [{"type": "text", "message": "Let me check."}], url
    assert recorder.received == []


async def test_the_interaction_level_form_is_accepted_too(
    alice: Tenant, backend: tuple[Backend, TestServer]
) -> None:
    recorder, server = backend
    recorder.reply = {"responses": [{"type": "text", "messages": ["Only one"]}]}
    story_id = await webhook_story(alice.developer, str(server.make_url("/hook")))
    result = (await ask(alice.public, story_id))["result"]
    assert result["fulfillment"][1:] == [{"type": "text", "message": "Only one", "delay": 1000}]
