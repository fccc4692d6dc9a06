"""A Telegram channel end to end: the channel API, then updates posted to its inbound
URL as Telegram posts them, and the answers reaching a stand-in of Telegram's Bot API
(tests/support/platforms/telegram.py) that checks each call's documented shape."""

import io
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from shared.config import Config
from shared.events import ChannelTurn, HandoffMessage, encode
from shared.messaging import connect
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
from support.desk import desk_stream
from support.metrics import sample
from support.platforms.telegram import (
    Failure,
    TelegramStandIn,
    click_update,
    message_update,
)
from support.waiting import eventually

BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@pytest.fixture
async def telegram(aiohttp_server: Any) -> TelegramStandIn:
    return await serve(aiohttp_server, TelegramStandIn(BOT_TOKEN))


@pytest.fixture
async def integrations(
    aiohttp_client: Any, config: Config, bot_api: TestClient, telegram: TelegramStandIn
) -> TestClient:
    return await integrations_api(aiohttp_client, config, telegram_api_url=telegram.url)


@pytest.fixture
async def turns(config: Config, bot_api: TestClient) -> AsyncIterator[list[ChannelTurn]]:
    async with turns_heard(config) as asked:
        yield asked


@pytest.fixture
async def story(alice: Tenant) -> dict[str, str]:
    return await pizza_story(alice)


def channels_api(integrations: TestClient, tenant: Tenant) -> Api:
    return Api(integrations, tenant.tokens.developer_token)


async def telegram_channel(api: Api, story_id: str) -> str:
    return await create_channel(api, story_id, "telegram", {"botToken": BOT_TOKEN})


async def deliver(
    integrations: TestClient, telegram: TelegramStandIn, update: dict[str, Any], **headers: str
) -> int:
    """Post an update to the URL Telegram was given, with the secret it was given."""
    path = "/" + telegram.webhook["url"].split("/", 3)[3]
    sent = {SECRET_HEADER: telegram.webhook["secret_token"], **headers}
    async with integrations.post(path, json=update, headers=sent) as response:
        return response.status


async def test_channel_crud_registers_the_webhook_and_never_shows_a_secret(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant, bob: Tenant,
    story: dict[str, str],
) -> None:  # fmt: skip
    api = channels_api(integrations, alice)
    channel_id = await telegram_channel(api, story["story"])

    read = await api.ok("GET", f"{CHANNELS}/{channel_id}")
    inbound = f"http://{integrations.host}:{integrations.port}/v2/channels/{channel_id}"
    assert read["inboundUrl"] == inbound
    assert (read["type"], read["name"], read["status"], read["error"]) == (
        "telegram", "Pizza bot", "active", None
    )  # fmt: skip
    assert read["story"] == {"id": story["story"], "name": "Pizza"}
    assert "credentials" not in read and BOT_TOKEN not in json.dumps(read)
    (registration,) = telegram.of("setWebhook")
    assert registration["url"] == inbound
    assert registration["allowed_updates"] == ["message", "callback_query"]
    assert registration["secret_token"] not in json.dumps(read)
    assert [c["id"] for c in await api.ok("GET", CHANNELS)] == [channel_id]

    intruder = channels_api(integrations, bob)
    assert (await intruder.get(f"{CHANNELS}/{channel_id}")).status == 404
    assert (await intruder.put(f"{CHANNELS}/{channel_id}", {"name": "x"})).status == 404
    assert (await intruder.delete(f"{CHANNELS}/{channel_id}")).status == 404
    assert await intruder.ok("GET", CHANNELS) == []

    await api.ok("PUT", f"{CHANNELS}/{channel_id}", {**read, "name": "Renamed"})
    assert (await api.ok("GET", f"{CHANNELS}/{channel_id}"))["name"] == "Renamed"
    assert len(telegram.of("setWebhook")) == 2
    assert telegram.of("setWebhook")[1]["secret_token"] == registration["secret_token"]

    await api.ok("DELETE", f"{CHANNELS}/{channel_id}")
    assert (await api.get(f"{CHANNELS}/{channel_id}")).status == 404
    assert telegram.refused == []


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"type": "fax"}, "type"),
        ({"credentials": {}}, "credentials.botToken"),
        ({"credentials": {"botToken": BOT_TOKEN, "appSecret": "x"}}, "credentials.appSecret"),
        ({"credentials": {"botToken": ""}}, "credentials.botToken"),
        ({"storyId": "f" * 24}, "storyId"),
        ({"name": ""}, "name"),
        ({"status": "active", "secret": 1}, "secret"),
    ],
)
async def test_a_bad_channel_is_a_400_naming_the_field(
    integrations: TestClient, alice: Tenant, story: dict[str, str], change: dict[str, Any],
    named: str,
) -> None:  # fmt: skip
    body = {"storyId": story["story"], "type": "telegram", "name": "Bot",
            "credentials": {"botToken": BOT_TOKEN}, **change}  # fmt: skip
    reply = await channels_api(integrations, alice).post(CHANNELS, body)
    assert reply.error == (400, "validation_error")
    assert reply.details.startswith(named), reply.details


async def test_a_refused_registration_is_on_the_channel_until_a_put_registers_it(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant, story: dict[str, str]
) -> None:
    telegram.fail(
        "setWebhook", Failure(400, "Bad Request: bad webhook: HTTPS url must be provided")
    )
    api = channels_api(integrations, alice)
    channel_id = await telegram_channel(api, story["story"])
    read = await api.ok("GET", f"{CHANNELS}/{channel_id}")
    assert read["status"] == "error"
    assert "HTTPS url must be provided" in read["error"]

    await api.ok("PUT", f"{CHANNELS}/{channel_id}", {"name": "Again"})
    again = await api.ok("GET", f"{CHANNELS}/{channel_id}")
    assert (again["status"], again["error"]) == ("active", None)


async def test_a_message_in_brings_the_answer_out_with_its_rich_parts(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], turns: list[ChannelTurn],
) -> None:  # fmt: skip
    channel_id = await telegram_channel(channels_api(integrations, alice), story["story"])

    assert await deliver(integrations, telegram, message_update(1, "show me the menu")) == 200

    await eventually(lambda: _async(len(telegram.of("sendPhoto")) == 2))
    (turn,) = await arrived(turns, 1)
    assert turn.session_id == f"{channel_id}:4242:77"
    assert (turn.source, turn.query, turn.goto) == ("telegram", "show me the menu", None)
    assert turn.parameters == {"default_source": "telegram", "default_name": "Ada Lovelace",
                               "default_language": "en"}  # fmt: skip
    calls = [(s.method, s.fields) for s in telegram.sent if s.method != "setWebhook"]
    assert [method for method, _ in calls] == [
        "sendMessage", "sendMessage", "sendPhoto", "sendMessage", "sendPhoto"
    ]  # fmt: skip
    text, quick, card, template, image = (fields for _, fields in calls)
    assert text == {"chat_id": 4242, "text": "Hello Ada Lovelace! Our menu:"}
    assert quick["text"] == "Size?"
    assert quick["reply_markup"] == {
        "keyboard": [[{"text": "Small"}], [{"text": "Large"}]],
        "one_time_keyboard": True,
        "resize_keyboard": True,
    }
    assert card["photo"] == "https://img.test/margherita.jpg"
    assert card["caption"] == "Margherita\nTomato and mozzarella"
    assert card["reply_markup"] == {"inline_keyboard": [
        [{"text": "Large", "callback_data": "q:large"}],
        [{"text": "Recipe", "url": "https://recipes.test/margherita"}],
    ]}  # fmt: skip
    assert template["reply_markup"] == {
        "inline_keyboard": [[{"text": "No", "callback_data": "q:No"}]]
    }
    assert image == {"chat_id": 4242, "photo": "https://img.test/oven.jpg"}
    assert telegram.refused == []


async def test_a_click_is_answered_and_says_its_postback_or_goes_to_its_interaction(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], turns: list[ChannelTurn],
) -> None:  # fmt: skip
    await telegram_channel(channels_api(integrations, alice), story["story"])

    assert await deliver(integrations, telegram, click_update(5, "q:large")) == 200
    assert await deliver(integrations, telegram, click_update(6, f"g:{story['sizes']}")) == 200

    await eventually(lambda: _async(len(telegram.of("sendMessage")) == 2))
    assert [(t.query, t.goto) for t in await arrived(turns, 2)] == [
        ("large", None),
        (None, story["sizes"]),
    ]
    assert telegram.of("answerCallbackQuery") == [
        {"callback_query_id": "cq5"}, {"callback_query_id": "cq6"}
    ]  # fmt: skip
    assert [m["text"] for m in telegram.of("sendMessage")] == ["Large it is Ada."] * 2


async def test_the_start_command_starts_the_story_s_welcome(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], turns: list[ChannelTurn],
) -> None:  # fmt: skip
    await telegram_channel(channels_api(integrations, alice), story["story"])
    asked = {"sessionId": "w", "storyId": story["story"], "trigger": "welcome",
             "parameters": {"default_name": "Ada Lovelace"}}  # fmt: skip
    welcome = await alice.developer.ok("POST", "/query", asked)

    assert await deliver(integrations, telegram, message_update(9, "/start")) == 200

    await eventually(lambda: _async(len(telegram.of("sendMessage")) == 1))
    (turn,) = await arrived(turns, 1)
    assert (turn.trigger, turn.query) == ("welcome", None)
    expected = [item["message"] for item in welcome["result"]["fulfillment"]]
    assert [m["text"] for m in telegram.of("sendMessage")] == expected


async def test_a_redelivered_update_is_answered_once(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], turns: list[ChannelTurn],
) -> None:  # fmt: skip
    await telegram_channel(channels_api(integrations, alice), story["story"])

    for _ in range(3):
        assert await deliver(integrations, telegram, message_update(7, "large")) == 200
    assert await deliver(integrations, telegram, message_update(8, "large")) == 200

    await eventually(lambda: _async(len(telegram.of("sendMessage")) == 2))
    assert [t.query for t in await arrived(turns, 2)] == ["large", "large"]


@pytest.mark.parametrize("secret", [None, "wrong", ""])
async def test_a_bad_or_missing_secret_is_refused_and_nothing_is_sent(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], turns: list[ChannelTurn], secret: str | None,
) -> None:  # fmt: skip
    channel_id = await telegram_channel(channels_api(integrations, alice), story["story"])
    headers = {} if secret is None else {SECRET_HEADER: secret}

    path = f"/v2/channels/{channel_id}"
    async with integrations.post(path, json=message_update(9, "large"), headers=headers) as reply:
        assert reply.status == 401
    async with integrations.post("/v2/channels/" + "f" * 32, json={}) as reply:
        assert reply.status == 401
    assert await deliver(integrations, telegram, message_update(10, "show me the menu")) == 200

    await eventually(lambda: _async(len(telegram.of("sendPhoto")) == 2))
    assert [t.query for t in await arrived(turns, 1)] == ["show me the menu"]


async def test_a_429_is_retried_after_telegram_s_retry_after(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], turns: list[ChannelTurn],
) -> None:  # fmt: skip
    api = channels_api(integrations, alice)
    channel_id = await telegram_channel(api, story["story"])
    telegram.fail("sendMessage", Failure(429, "Too Many Requests: retry after 1", retry_after=1))

    assert await deliver(integrations, telegram, message_update(11, "large")) == 200

    await eventually(lambda: _async(telegram.of("sendMessage")), seconds=5)
    methods = [s.method for s in telegram.sent if s.method != "setWebhook"]
    assert methods == ["sendMessage (answered 429)", "sendMessage"]
    assert (await api.ok("GET", f"{CHANNELS}/{channel_id}"))["error"] is None


async def test_a_send_that_fails_lands_on_the_channel_s_error_and_in_metrics(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], turns: list[ChannelTurn],
) -> None:  # fmt: skip
    api = channels_api(integrations, alice)
    channel_id = await telegram_channel(api, story["story"])
    before = await _failures(integrations)
    telegram.fail("sendMessage", Failure(400, "Bad Request: chat not found"))

    assert await deliver(integrations, telegram, message_update(12, "large")) == 200

    async def error() -> Any:
        return (await api.ok("GET", f"{CHANNELS}/{channel_id}"))["error"]

    assert await eventually(error) == "telegram sendMessage: HTTP 400: Bad Request: chat not found"
    assert await _failures(integrations) == before + 1

    assert await deliver(integrations, telegram, message_update(13, "large")) == 200
    await eventually(lambda: _async(telegram.of("sendMessage")))
    assert await eventually(lambda: _async_not_none(error)) is True


async def test_channels_follow_their_story_renamed_then_deleted(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant, story: dict[str, str]
) -> None:
    api = channels_api(integrations, alice)
    channel_id = await telegram_channel(api, story["story"])
    path = f"/stories/{story['story']}"
    await alice.developer.ok("PUT", path, {"name": "Pasta", "description": ""})

    async def story_name() -> Any:
        return (await api.ok("GET", f"{CHANNELS}/{channel_id}"))["story"]["name"] == "Pasta"

    await eventually(story_name)
    await alice.developer.ok("DELETE", path)

    async def gone() -> bool:
        return (await api.get(f"{CHANNELS}/{channel_id}")).status == 404

    await eventually(gone)


async def _async(value: Any) -> Any:
    return value


async def _async_not_none(error: Any) -> bool:
    return await error() is None


async def _failures(integrations: TestClient) -> float:
    async with integrations.get("/metrics") as response:
        page = await response.text()
    return sample(page, "parley_channel_send_failures_total", type="telegram")


async def test_a_handoff_message_is_sent_only_on_the_channel_the_user_on_the_channel(
    config: Config, integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    bob: Tenant, story: dict[str, str],
) -> None:  # fmt: skip
    """Events published here as bot-api's outbox would: only the one naming a channel
    of that account and story is sent (the whole handoff through bot-api's API is the
    next test)."""
    channel_id = await telegram_channel(channels_api(integrations, alice), story["story"])
    account = alice.tokens.account_id
    nats = await connect(config.nats_url, "test-handoff")
    try:
        for message in (
            HandoffMessage(bob.tokens.account_id, story["story"], f"{channel_id}:4242:77", "x"),
            HandoffMessage(account, "e" * 24, f"{channel_id}:4242:77", "other story"),
            HandoffMessage(account, story["story"], "a-widget-session", "not a channel's"),
            HandoffMessage(account, story["story"], f"{channel_id}:4242:77", "Hi, Bob here"),
        ):
            await nats.jetstream().publish(config.subjects.handoff_message, encode(message))
        await eventually(lambda: _async(telegram.of("sendMessage")), seconds=5)
    finally:
        await nats.close()
    assert telegram.of("sendMessage") == [{"chat_id": 4242, "text": "Hi, Bob here"}]


async def test_a_handoff_a_person_s_messages_and_the_return_to_the_bot(
    aiohttp_server: Any, integrations: TestClient, telegram: TelegramStandIn, alice: Tenant,
    story: dict[str, str], bot_api: TestClient,
) -> None:  # fmt: skip
    """A user asks for a person: the bot is silent while the user's messages go to the
    story's handoff connection and the agent desk's stream (the user named as Telegram
    named them), the person's message (bot-api's handoff API) reaches the user on
    Telegram, and once the conversation is given back the user is told so and the bot
    answers."""
    delivered: list[dict[str, Any]] = []

    async def person_s_side(request: web.Request) -> web.Response:
        delivered.append(await request.json())
        return web.json_response({})

    desk = web.Application()
    desk.router.add_post("/handoff", person_s_side)
    desk_url = str((await aiohttp_server(desk)).make_url("/handoff"))
    api = channels_api(integrations, alice)
    connection = await api.post(
        "/v2/integrations/webhook", {"storyId": story["story"], "name": "Desk", "url": desk_url}
    )
    assert connection.status == 201, connection.body
    await alice.developer.create_interaction(
        story["story"],
        "Person",
        userSays=["I want to talk to a person"],
        responses=[
            {"type": "text", "messages": ["A person will answer."]},
            {"type": "handoff", "connection": connection.body["id"]},
        ],
    )
    channel_id = await telegram_channel(api, story["story"])
    session = f"{channel_id}:4242:77"
    handoffs = f"/stories/{story['story']}/handoffs"

    assert (
        await deliver(integrations, telegram, message_update(20, "I want to talk to a person"))
        == 200
    )
    await eventually(lambda: _async(telegram.of("sendMessage")))
    token, desk_url = alice.tokens.developer_token, str(bot_api.make_url(""))
    async with desk_stream(desk_url, token, story["story"]) as desk:
        assert await deliver(integrations, telegram, message_update(21, "large")) == 200
        (heard,) = await desk.lines(1)
    assert (heard["sessionId"], heard["entry"]["speaker"], heard["entry"]["text"]) == (
        session, "user", "large"
    )  # fmt: skip
    await eventually(lambda: _async(delivered), seconds=5)
    assert delivered[0]["sessionId"] == session
    assert delivered[0]["message"] == {"query": "large"}
    listed = await alice.developer.ok("GET", handoffs)
    assert [(h["sessionId"], h["userName"], h["channel"]) for h in listed] == [
        (session, "Ada Lovelace", "Telegram")
    ]

    await alice.developer.ok("POST", f"{handoffs}/{session}/messages", {"text": "Hi, Bob here"})
    await eventually(lambda: _async(len(telegram.of("sendMessage")) == 2), seconds=5)
    await alice.developer.ok("DELETE", f"{handoffs}/{session}")
    await eventually(lambda: _async(len(telegram.of("sendMessage")) == 3), seconds=5)
    assert await deliver(integrations, telegram, message_update(22, "large")) == 200
    await eventually(lambda: _async(len(telegram.of("sendMessage")) == 4), seconds=5)

    assert [m["text"] for m in telegram.of("sendMessage")] == [
        "A person will answer.", "Hi, Bob here", "You are talking to the bot again.",
        "Large it is Ada Lovelace.",
    ]  # fmt: skip
    assert len(delivered) == 1
    assert telegram.refused == []


async def test_a_client_failing_authentication_again_and_again_is_refused_early(
    aiohttp_client: Any, config: Config, bot_api: TestClient, telegram: TelegramStandIn,
    alice: Tenant, story: dict[str, str],
) -> None:  # fmt: skip
    integrations = await integrations_api(
        aiohttp_client, config, telegram_api_url=telegram.url, auth_failure_rate=0.01,
        auth_failure_burst=2,
    )  # fmt: skip
    channel_id = await telegram_channel(channels_api(integrations, alice), story["story"])

    statuses = []
    for update_id in range(3):
        wrong = {SECRET_HEADER: "wrong"}
        path = f"/v2/channels/{channel_id}"
        async with integrations.post(path, json=message_update(update_id, "x"), headers=wrong) as r:
            statuses.append(r.status)
    assert statuses == [401, 401, 429]
    assert telegram.of("sendMessage") == []


async def test_a_new_integrations_public_url_registers_telegram_again_at_start_up(
    aiohttp_client: Any, config: Config, bot_api: TestClient, telegram: TelegramStandIn,
    alice: Tenant, story: dict[str, str],
) -> None:  # fmt: skip
    def at(public_url: str) -> Any:
        return integrations_api(
            aiohttp_client, config, telegram_api_url=telegram.url,
            integrations_public_url=public_url,
        )  # fmt: skip

    old = await at("https://old-tunnel.example")
    channel_id = await telegram_channel(channels_api(old, alice), story["story"])
    await at("https://new-tunnel.example")  # INTEGRATIONS_PUBLIC_URL changed, restarted

    def registered() -> list[str]:
        return [str(call["url"]) for call in telegram.of("setWebhook")]

    async def registered_again() -> bool:
        return len(registered()) == 2

    await eventually(registered_again, 5.0)
    assert registered() == [
        f"https://old-tunnel.example/v2/channels/{channel_id}",
        f"https://new-tunnel.example/v2/channels/{channel_id}",
    ]
    first, again = telegram.of("setWebhook")
    assert again["secret_token"] == first["secret_token"]
    read = await channels_api(old, alice).ok("GET", f"{CHANNELS}/{channel_id}")
    assert (read["status"], read["error"]) == ("active", None)


async def test_put_takes_the_full_set_of_the_type_s_credentials_or_none(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant, story: dict[str, str]
) -> None:
    api = channels_api(integrations, alice)
    channel_id = await telegram_channel(api, story["story"])
    path = f"{CHANNELS}/{channel_id}"

    for credentials, named in (
        ({}, "credentials.botToken"),
        ({"botToken": BOT_TOKEN, "signingSecret": "s"}, "credentials.signingSecret"),
    ):
        reply = await api.put(path, {"name": "Bot", "credentials": credentials})
        assert reply.error == (400, "validation_error")
        assert reply.details.startswith(named), reply.details
    reply = await api.put(path, {"name": "Bot", "storyId": story["story"]})
    assert reply.error == (400, "validation_error")
    assert len(telegram.of("setWebhook")) == 1

    other_token = "999:other-bot"
    await api.ok("PUT", path, {"name": "Bot", "credentials": {"botToken": other_token}})
    refused = await api.ok("GET", path)  # the stand-in knows only BOT_TOKEN: 401
    assert (refused["status"], refused["error"]) == (
        "error", "telegram setWebhook: HTTP 401: Unauthorized"
    )  # fmt: skip
    await api.ok("PUT", path, {"name": "Bot", "credentials": {"botToken": BOT_TOKEN}})
    assert (await api.ok("GET", path))["status"] == "active"


async def test_channels_per_account_are_bounded_by_the_quota(
    aiohttp_client: Any, config: Config, bot_api: TestClient, telegram: TelegramStandIn,
    alice: Tenant, story: dict[str, str],
) -> None:  # fmt: skip
    limited = await integrations_api(
        aiohttp_client, config, telegram_api_url=telegram.url, quota_channels=2
    )
    api = channels_api(limited, alice)
    await telegram_channel(api, story["story"])
    await telegram_channel(api, story["story"])
    body = {"storyId": story["story"], "type": "telegram", "name": "Third",
            "credentials": {"botToken": BOT_TOKEN}}  # fmt: skip
    reply = await api.post(CHANNELS, body)
    assert reply.error == (409, "conflict")
    assert len(await api.ok("GET", CHANNELS)) == 2


async def test_a_body_telegram_never_sends_is_refused_and_nothing_is_sent(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant, story: dict[str, str]
) -> None:
    channel_id = await telegram_channel(channels_api(integrations, alice), story["story"])
    path = f"/v2/channels/{channel_id}"
    secret = {SECRET_HEADER: telegram.webhook["secret_token"]}

    refused = []
    for body, content_type in (
        (b"[]", "application/json"),
        (b'{"update_id": "seven"}', "application/json"),
        (b"update_id=7", "text/plain"),
        (b"{" + b" " * (1024 * 1024) + b"}", "application/json"),
    ):
        headers = {**secret, "Content-Type": content_type}
        async with integrations.post(path, data=io.BytesIO(body), headers=headers) as reply:
            refused.append(reply.status)
    assert refused == [400, 400, 415, 413]
    assert [s.method for s in telegram.sent] == ["setWebhook"]


async def test_an_update_nested_100k_deep_is_a_400_counted_and_the_channel_answers_on(
    integrations: TestClient, telegram: TelegramStandIn, alice: Tenant, story: dict[str, str],
    turns: list[ChannelTurn],
) -> None:  # fmt: skip
    """The campaign's signed 100,000-deep body answered 500 (the decoder's RecursionError)."""
    await telegram_channel(channels_api(integrations, alice), story["story"])
    path = "/" + telegram.webhook["url"].split("/", 3)[3]
    headers = {SECRET_HEADER: telegram.webhook["secret_token"], "Content-Type": "application/json"}
    deep = b'{"update_id": 1, "message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    before = await unreadable(integrations)

    async with integrations.post(path, data=io.BytesIO(deep), headers=headers) as response:
        assert response.status == 400
        assert "nested deeper than 32" in (await response.json())["status"]["errorDetails"]
    assert await unreadable(integrations) - before == 1

    assert await deliver(integrations, telegram, message_update(2, "large")) == 200
    assert [t.query for t in await arrived(turns, 1)] == ["large"]


async def unreadable(integrations: TestClient) -> float:
    async with integrations.get("/metrics") as response:
        page = await response.text()
    return sample(page, "parley_channel_calls_unreadable_total", type="telegram")
