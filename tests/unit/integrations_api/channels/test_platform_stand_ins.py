"""The platforms' stand-ins as HTTP servers: what they record, refuse and rate-limit,
as the channels' end-to-end tests rely on."""

import json
from typing import Any

from integrations_api.channels.messenger import PLATFORM as messenger
from integrations_api.channels.platform import Call, Incoming
from integrations_api.channels.sender import JSON
from integrations_api.channels.slack import PLATFORM as slack
from integrations_api.channels.whatsapp import PLATFORM as whatsapp
from shared.fulfillment import Text
from support.platforms.meta import MetaStandIn
from support.platforms.slack import SlackStandIn

SLACK = {"botToken": "xoxb-1", "signingSecret": "s"}
MESSENGER = {"pageAccessToken": "page-1", "appSecret": "a", "verifyToken": "v"}
WHATSAPP = {"accessToken": "wa-1", "phoneNumberId": "1065", "appSecret": "a", "verifyToken": "v"}


async def send(client: Any, call: Call) -> tuple[int, dict[str, str], Any]:
    """Post the call as channels/sender.py does."""
    headers = {**call.headers, "Content-Type": JSON}
    body = json.dumps(call.json).encode()
    async with client.post(call.path, data=body, headers=headers) as response:
        return response.status, dict(response.headers), await response.json()


async def test_slack_records_a_message_it_takes_and_refuses_a_malformed_one_as_slack_does(
    aiohttp_client: Any,
) -> None:
    standin = SlackStandIn(bot_token="xoxb-1")
    client = await aiohttp_client(standin.app())
    (good,) = slack.text(SLACK, "C1", "hello")
    malformed = Call(good.path, {"channel": "C1", "blocks": [{"type": "divider!"}]}, good.headers)
    stranger = Call(good.path, good.json, {"Authorization": "Bearer xoxb-2"})

    status, _, answer = await send(client, good)
    assert (status, answer["ok"], answer["channel"]) == (200, True, "C1")
    status, _, answer = await send(client, malformed)
    assert (status, answer["ok"], answer["error"]) == (200, False, "invalid_blocks")
    _, _, answer = await send(client, stranger)
    assert answer["error"] == "invalid_auth"
    assert standin.bodies() == [{"channel": "C1", "text": "hello"}]
    assert len(standin.refused) == 1


async def test_slack_answers_429_with_retry_after_then_200(aiohttp_client: Any) -> None:
    standin = SlackStandIn(bot_token="xoxb-1")
    standin.rate_limit(calls=1, retry_after_seconds=2)
    client = await aiohttp_client(standin.app())
    (call,) = slack.text(SLACK, "C1", "hello")

    first, headers, _ = await send(client, call)
    second, _, _ = await send(client, call)

    assert (first, headers["Retry-After"], second) == (429, "2", 200)
    assert len(standin.accepted) == 1


async def test_meta_takes_a_messenger_and_a_whatsapp_answer_and_refuses_with_graphs_error(
    aiohttp_client: Any,
) -> None:
    standin = MetaStandIn(page_access_token="page-1", phone_number_id="1065", access_token="wa-1")
    client = await aiohttp_client(standin.app())
    fulfillment = [Text("hello")]
    [to_messenger] = messenger.render(MESSENGER, Incoming("m", "P1", "P1"), fulfillment)
    [to_whatsapp] = whatsapp.render(WHATSAPP, Incoming("w", "W1", "W1"), fulfillment)
    assert isinstance(to_messenger, Call) and isinstance(to_whatsapp, Call)
    empty = Call(to_whatsapp.path, {**to_whatsapp.json, "text": {"body": ""}}, to_whatsapp.headers)
    wrong_token = Call(to_messenger.path, to_messenger.json, {"Authorization": "Bearer wa-1"})

    assert (await send(client, to_messenger))[0] == 200
    status, _, answer = await send(client, to_whatsapp)
    assert (status, answer["messages"][0]["id"]) == (200, "wamid.m_2")
    status, _, answer = await send(client, empty)
    assert (status, answer["error"]["code"], answer["error"]["message"]) == (
        400,
        100,
        "(#100) text.body: empty",
    )
    status, _, answer = await send(client, wrong_token)
    assert (status, answer["error"]["code"]) == (400, 190)
    assert [call.path for call in standin.accepted] == [to_messenger.path, to_whatsapp.path]


async def test_meta_answers_429_with_retry_after_then_200(aiohttp_client: Any) -> None:
    standin = MetaStandIn(page_access_token="page-1", phone_number_id="1065", access_token="wa-1")
    standin.rate_limit(calls=2, retry_after_seconds=1)
    client = await aiohttp_client(standin.app())
    (call,) = messenger.text(MESSENGER, "P1", "hello")

    statuses = [(await send(client, call))[0] for _ in range(3)]

    assert statuses == [429, 429, 200]
    assert len(standin.accepted) == 1
