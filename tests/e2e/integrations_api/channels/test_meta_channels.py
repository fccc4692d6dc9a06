"""Messenger and WhatsApp channels end to end: webhook calls signed as Meta signs them
(and its verification request), posted to the channel's inbound URL, and the answers
reaching a stand-in of the Graph API (tests/support/platforms/meta.py) that checks
each call's documented shape."""

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from integrations_api.channels.meta import GRAPH_VERSION
from shared.config import Config
from shared.events import ChannelTurn
from support.api import Api, Tenant
from support.channel_e2e import (
    CHANNELS,
    arrived,
    create_channel,
    integrations_api,
    pizza_story,
    serve,
    turns_heard,
)
from support.metrics import sample
from support.platforms.meta import (
    APP_SECRET,
    MESSENGER,
    PHONE_NUMBER_ID,
    PSID,
    WA_ID,
    WHATSAPP,
    MetaStandIn,
    messenger_call,
    signed_headers,
    whatsapp_call,
)


@pytest.fixture
async def graph(aiohttp_server: Any) -> MetaStandIn:
    stand_in = MetaStandIn(
        MESSENGER["pageAccessToken"], WHATSAPP["phoneNumberId"], WHATSAPP["accessToken"]
    )
    return await serve(aiohttp_server, stand_in)


@pytest.fixture
async def integrations(
    aiohttp_client: Any, config: Config, bot_api: TestClient, graph: MetaStandIn
) -> TestClient:
    return await integrations_api(aiohttp_client, config, meta_graph_url=graph.url)


@pytest.fixture
async def turns(config: Config, bot_api: TestClient) -> AsyncIterator[list[ChannelTurn]]:
    async with turns_heard(config) as asked:
        yield asked


@pytest.fixture
async def story(alice: Tenant) -> dict[str, str]:
    return await pizza_story(alice)


async def meta_channel(
    integrations: TestClient, alice: Tenant, story: dict[str, str], channel_type: str
) -> str:
    credentials = MESSENGER if channel_type == "messenger" else WHATSAPP
    api = Api(integrations, alice.tokens.developer_token)
    return await create_channel(api, story["story"], channel_type, credentials)


@pytest.fixture
async def messenger(integrations: TestClient, alice: Tenant, story: dict[str, str]) -> str:
    return await meta_channel(integrations, alice, story, "messenger")


@pytest.fixture
async def whatsapp(integrations: TestClient, alice: Tenant, story: dict[str, str]) -> str:
    return await meta_channel(integrations, alice, story, "whatsapp")


def messenger_text(mid: str, text: str) -> dict[str, Any]:
    return messenger_call({"message": {"mid": mid, "text": text}})


def whatsapp_text(message_id: str, text: str) -> dict[str, Any]:
    return whatsapp_call({"id": message_id, "type": "text", "text": {"body": text}})


async def deliver(
    integrations: TestClient,
    channel_id: str,
    call: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> int:
    """Post `call` as Meta does, signed with the app secret unless `headers` says
    otherwise; the status of the answer."""
    body = json.dumps(call).encode()
    sent = signed_headers(APP_SECRET, body) if headers is None else headers
    headers = {"Content-Type": "application/json", **sent}
    async with integrations.post(
        f"/v2/channels/{channel_id}", data=body, headers=headers
    ) as response:
        return response.status


@pytest.mark.parametrize("channel_type", ["messenger", "whatsapp"])
async def test_metas_verification_request_is_answered_with_the_challenge_only_for_the_verify_token(
    integrations: TestClient, alice: Tenant, story: dict[str, str], channel_type: str
) -> None:
    channel_id = await meta_channel(integrations, alice, story, channel_type)
    path = f"/v2/channels/{channel_id}"

    right = {
        "hub.mode": "subscribe",
        "hub.verify_token": "pizza-verify",
        "hub.challenge": "1158201444",
    }
    async with integrations.get(path, params=right) as response:
        assert (response.status, await response.text()) == (200, "1158201444")
    async with integrations.get(path, params={**right, "hub.verify_token": "guess"}) as response:
        assert response.status == 401


async def test_a_messenger_message_in_brings_the_answer_out_as_send_api_messages(
    integrations: TestClient, messenger: str, graph: MetaStandIn, turns: list[ChannelTurn]
) -> None:
    assert await deliver(integrations, messenger, messenger_text("m_1", "show me the menu")) == 200

    await arrived(graph.accepted, 5)
    (turn,) = await arrived(turns, 1)
    assert (turn.session_id, turn.source) == (f"{messenger}:{PSID}:{PSID}", "messenger")
    assert turn.parameters == {"default_source": "messenger"}
    assert {call.path for call in graph.accepted} == {f"/{GRAPH_VERSION}/me/messages"}
    text, quick, card, template, image = (body["message"] for body in graph.bodies())
    assert text == {"text": "Hello! Our menu:"}
    assert [r["payload"] for r in quick["quick_replies"]] == ["q:Small", "q:Large"]
    [element] = card["attachment"]["payload"]["elements"]
    assert element["image_url"] == "https://img.test/margherita.jpg"
    assert [b["type"] for b in element["buttons"]] == ["postback", "web_url"]
    assert template["attachment"]["payload"]["template_type"] == "button"
    assert image["attachment"]["payload"]["url"] == "https://img.test/oven.jpg"
    assert graph.refused == []


async def test_a_whatsapp_message_in_brings_the_answer_out_with_the_users_name(
    integrations: TestClient, whatsapp: str, graph: MetaStandIn, turns: list[ChannelTurn]
) -> None:
    assert (
        await deliver(integrations, whatsapp, whatsapp_text("wamid.1", "show me the menu")) == 200
    )

    await arrived(graph.accepted, 5)
    (turn,) = await arrived(turns, 1)
    assert turn.session_id == f"{whatsapp}:{WA_ID}:{WA_ID}"
    assert turn.parameters == {"default_source": "whatsapp", "default_name": "Sheena Nelson"}
    whatsapp_messages = f"/{GRAPH_VERSION}/{PHONE_NUMBER_ID}/messages"
    assert {call.path for call in graph.accepted} == {whatsapp_messages}
    text, quick, card, template, image = graph.bodies()
    assert text["text"]["body"] == "Hello Sheena Nelson! Our menu:"
    assert quick["interactive"]["type"] == "button"
    assert card["interactive"]["header"]["image"]["link"] == "https://img.test/margherita.jpg"
    assert card["interactive"]["body"]["text"].endswith("Recipe: https://recipes.test/margherita")
    assert template["interactive"]["action"]["buttons"][0]["reply"] == {"id": "q:No", "title": "No"}
    assert image["image"] == {"link": "https://img.test/oven.jpg"}
    assert graph.refused == []


async def test_clicks_on_messenger_and_whatsapp_say_their_payload_or_jump(
    integrations: TestClient, messenger: str, whatsapp: str, graph: MetaStandIn,
    story: dict[str, str], turns: list[ChannelTurn],
) -> None:  # fmt: skip
    goto = "g:" + story["sizes"]
    quick_reply = {
        "message": {"mid": "m_2", "text": "Large", "quick_reply": {"payload": "q:large"}}
    }
    postback = {"postback": {"mid": "m_3", "title": "Large", "payload": goto}}
    button = {"type": "button_reply", "button_reply": {"id": "q:large", "title": "Large"}}
    row = {"type": "list_reply", "list_reply": {"id": goto, "title": "Large"}}

    assert await deliver(integrations, messenger, messenger_call(quick_reply)) == 200
    assert await deliver(integrations, messenger, messenger_call(postback)) == 200
    assert (
        await deliver(
            integrations,
            whatsapp,
            whatsapp_call({"id": "wamid.2", "type": "interactive", "interactive": button}),
        )
        == 200
    )
    assert (
        await deliver(
            integrations,
            whatsapp,
            whatsapp_call({"id": "wamid.3", "type": "interactive", "interactive": row}),
        )
        == 200
    )

    await arrived(graph.accepted, 4)
    assert sorted((t.source, t.query or "", t.goto or "") for t in await arrived(turns, 4)) == [
        ("messenger", "", story["sizes"]),
        ("messenger", "large", ""),
        ("whatsapp", "", story["sizes"]),
        ("whatsapp", "large", ""),
    ]


async def test_a_call_with_events_that_cannot_be_read_is_taken_and_its_good_ones_answered(
    integrations: TestClient, messenger: str, graph: MetaStandIn, turns: list[ChannelTurn]
) -> None:
    call = messenger_call(
        {"postback": {"title": "Large", "payload": "q:large"}},  # no mid
        {"message": {"mid": "m_7", "text": "large"}},
    )
    guest = {"sender": {"user_ref": "USER-REF-ID"}, "recipient": {"id": "1143"},
             "timestamp": 1527459824, "postback": {"mid": "m_8", "payload": "q:large"}}  # fmt: skip
    blocked = {"recipient": {"id": "1143"}, "timestamp": 1458692752478,
               "policy-enforcement": {"action": "block", "reason": "spam"}}  # fmt: skip
    call["entry"][0]["messaging"][1:1] = [guest, blocked, {"sender": {"id": PSID}, "message": 7}]
    before = await skipped(integrations)

    assert await deliver(integrations, messenger, call) == 200

    assert [t.query for t in await arrived(turns, 2)] == ["large", "large"]
    await arrived(graph.accepted, 2)
    assert await skipped(integrations) - before == 3


async def skipped(integrations: TestClient) -> float:
    async with integrations.get("/metrics") as response:
        page = await response.text()
    return sample(page, "parley_channel_events_skipped_total", type="messenger")


async def test_a_message_meta_sends_again_is_answered_once(
    integrations: TestClient, messenger: str, graph: MetaStandIn, turns: list[ChannelTurn]
) -> None:
    for _ in range(3):
        assert await deliver(integrations, messenger, messenger_text("m_4", "large")) == 200
    assert await deliver(integrations, messenger, messenger_text("m_5", "large")) == 200

    await arrived(graph.accepted, 2)
    assert [t.query for t in await arrived(turns, 2)] == ["large", "large"]
    assert len(graph.accepted) == 2


@pytest.mark.parametrize(
    "headers",
    [{}, signed_headers("another-secret", b"{}"), {"X-Hub-Signature-256": "sha256=00"}],
    ids=["unsigned", "another secret", "a wrong signature"],
)
async def test_a_call_not_signed_with_the_app_secret_is_refused_and_nothing_is_sent(
    integrations: TestClient, whatsapp: str, graph: MetaStandIn, turns: list[ChannelTurn],
    headers: dict[str, str],
) -> None:  # fmt: skip
    assert await deliver(integrations, whatsapp, whatsapp_text("wamid.4", "large"), headers) == 401
    assert (
        await deliver(integrations, whatsapp, whatsapp_text("wamid.5", "show me the menu")) == 200
    )

    await arrived(graph.accepted, 5)
    assert [t.query for t in await arrived(turns, 1)] == ["show me the menu"]
    assert "Large it is Sheena Nelson." not in [
        body.get("text", {}).get("body") for body in graph.bodies()
    ]


async def test_a_429_is_retried_after_graphs_retry_after(
    integrations: TestClient, alice: Tenant, whatsapp: str, graph: MetaStandIn,
    turns: list[ChannelTurn],
) -> None:  # fmt: skip
    graph.rate_limit(calls=1, retry_after_seconds=1)

    assert await deliver(integrations, whatsapp, whatsapp_text("wamid.6", "large")) == 200

    await arrived(graph.accepted, 1)
    assert graph.busy_calls == 0
    assert [body["text"]["body"] for body in graph.bodies()] == ["Large it is Sheena Nelson."]
    read = await Api(integrations, alice.tokens.developer_token).ok("GET", f"{CHANNELS}/{whatsapp}")
    assert read["error"] is None
