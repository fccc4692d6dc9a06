"""A channel's background work against a slow or hanging platform: it outlives the
platform's call (its database deadline is its own), its failures and successes land on
the channel's `error` however late they come, and one channel's hanging platform never
holds another channel of the same account (channels/work.py, docs/reliability.md)."""

import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from integrations_api.channels.work import CHANNEL_RUNNING
from shared.config import Config
from support.api import Api, Tenant
from support.channel_e2e import CHANNELS, create_channel, integrations_api, pizza_story, serve
from support.platforms.telegram import Failure, TelegramStandIn, message_update
from support.waiting import eventually

BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
BUDGET_SECONDS = 1.0
"""integrations-api's REQUEST_BUDGET_SECONDS: the platform's call is acknowledged well
within it, and a send slower than it is answered after the call's deadline passed."""

REFUSED = "telegram sendMessage: HTTP 400: Bad Request: chat not found"


@dataclass(frozen=True)
class Stack:
    integrations: TestClient
    """integrations-api beside bot-api, its budget BUDGET_SECONDS."""
    telegram: TelegramStandIn


@pytest.fixture
async def stack(
    aiohttp_server: Any, aiohttp_client: Any, config: Config, bot_api: TestClient
) -> Stack:
    telegram = await serve(aiohttp_server, TelegramStandIn(BOT_TOKEN))
    settings = {"telegram_api_url": telegram.url, "request_budget_seconds": BUDGET_SECONDS}
    return Stack(await integrations_api(aiohttp_client, config, **settings), telegram)


async def pizza_channel(integrations: TestClient, tenant: Tenant) -> tuple[Api, str]:
    """The tenant's channel API, and a Telegram channel of its pizza story."""
    api = Api(integrations, tenant.tokens.developer_token)
    story_id = (await pizza_story(tenant))["story"]
    return api, await create_channel(api, story_id, "telegram", {"botToken": BOT_TOKEN})


async def deliver(integrations: TestClient, telegram: TelegramStandIn, update_id: int) -> None:
    await deliver_to(integrations, telegram.webhook, update_id)


async def deliver_to(integrations: TestClient, webhook: dict[str, Any], update_id: int) -> None:
    """A user's "large" (in a chat of the update's id), posted to the inbound URL a
    `setWebhook` registered."""
    path = "/" + webhook["url"].split("/", 3)[3]
    secret = {"X-Telegram-Bot-Api-Secret-Token": webhook["secret_token"]}
    update = message_update(update_id, "large", chat=update_id)
    async with integrations.post(path, json=update, headers=secret) as response:
        assert response.status == 200


async def test_a_send_slower_than_the_call_s_budget_records_its_failure_then_its_success(
    stack: Stack, alice: Tenant
) -> None:
    integrations, telegram = stack.integrations, stack.telegram
    api, channel_id = await pizza_channel(integrations, alice)
    telegram.slow("sendMessage", 2 * BUDGET_SECONDS)
    telegram.fail("sendMessage", Failure(400, "Bad Request: chat not found"))

    async def error() -> Any:
        return (await api.ok("GET", f"{CHANNELS}/{channel_id}"))["error"]

    await deliver(integrations, telegram, 1)
    await eventually(lambda: _is(error(), REFUSED), 10)

    await deliver(integrations, telegram, 2)
    await eventually(lambda: _is(error(), None), 10)
    assert [m["text"] for m in telegram.of("sendMessage")] == ["Large it is Ada Lovelace."]


async def test_a_success_clears_an_error_set_after_its_message_came(
    stack: Stack, alice: Tenant
) -> None:
    """The second message's send waits while the first's fails: the channel the second
    read had no `error`, the stored one has, and the success clears it."""
    integrations, telegram = stack.integrations, stack.telegram
    api, channel_id = await pizza_channel(integrations, alice)
    outage = telegram.hang({2})
    await deliver(integrations, telegram, 2)
    await eventually(lambda: _is(_now(telegram.held), 1), 10)
    telegram.fail("sendMessage", Failure(400, "Bad Request: chat not found"))
    await deliver(integrations, telegram, 1)

    async def error() -> Any:
        return (await api.ok("GET", f"{CHANNELS}/{channel_id}"))["error"]

    await eventually(lambda: _is(error(), REFUSED), 10)
    outage.set()
    await eventually(lambda: _is(error(), None), 10)
    assert [m["chat_id"] for m in telegram.of("sendMessage")] == [2]


async def _is(value: Awaitable[Any], expected: Any) -> bool:
    return await value == expected


async def test_a_hanging_platform_holds_only_its_own_channel(stack: Stack, alice: Tenant) -> None:
    """Two channels of one account; the platform hangs on every send of the first's
    conversations, more of them than the account had slots before."""
    integrations, telegram = stack.integrations, stack.telegram
    api = Api(integrations, alice.tokens.developer_token)
    story_id = (await pizza_story(alice))["story"]
    for _ in range(2):
        await create_channel(api, story_id, "telegram", {"botToken": BOT_TOKEN})
    down, up = telegram.of("setWebhook")
    hung_chats = set(range(100, 100 + CHANNEL_RUNNING + 2))
    outage = telegram.hang(hung_chats)

    for chat in sorted(hung_chats):
        await deliver_to(integrations, down, chat)
    await eventually(lambda: _is(_now(telegram.held), CHANNEL_RUNNING), 10)
    started = time.monotonic()
    await deliver_to(integrations, up, 1)

    async def answered() -> bool:
        return any(m["chat_id"] == 1 for m in telegram.of("sendMessage"))

    await eventually(answered, 10)  # measured 0.1 s; before: not until the outage ends
    assert time.monotonic() - started < 10
    outage.set()


async def _now(value: Any) -> Any:
    return value
