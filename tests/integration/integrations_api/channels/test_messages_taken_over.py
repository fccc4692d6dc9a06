"""A channel message accepted by an integrations-api replica that dies before answering
it is answered by another, once (channels/accepted.py, issue 34): integrations-api
replicas as apps on one database and one NATS beside a bot-api, a Telegram stand-in
taking their answers. A replica "dies" as SIGKILL leaves it: its renewals stop and its
work is gone, nothing marked, and the call it had under way reaches the platform (the
stand-in, holding it, lets it go); the time of the others' looks is moved past the
lease."""

import asyncio
import time
from collections import Counter
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from prometheus_client import REGISTRY, generate_latest
from pymongo import AsyncMongoClient

from bot_api.history.keys import RECORDER
from integrations_api.channels.accepted import LEASE_SECONDS
from integrations_api.channels.keys import CHANNEL_BACKENDS
from integrations_api.channels.service import ChannelBackends
from shared.config import Config
from support.api import Api, Tenant
from support.channel_e2e import create_channel, integrations_api, pizza_story, serve
from support.metrics import sample
from support.platforms.telegram import TelegramStandIn, click_update, message_update
from support.waiting import eventually

BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
LARGE = "Large it is Ada Lovelace."
MENU = "Hello Ada Lovelace! Our menu:"
"""The first text of each answer the story gives (support/channel_e2e.py)."""
WAIT = 10.0


@pytest.fixture
async def telegram(aiohttp_server: Any) -> TelegramStandIn:
    return await serve(aiohttp_server, TelegramStandIn(BOT_TOKEN))


@pytest.fixture
async def story(alice: Tenant) -> dict[str, str]:
    return await pizza_story(alice)


async def replicas(
    aiohttp_client: Any, config: Config, telegram: TelegramStandIn, count: int
) -> list[TestClient]:
    return [
        await integrations_api(aiohttp_client, config, telegram_api_url=telegram.url)
        for _ in range(count)
    ]


def backends(replica: TestClient) -> ChannelBackends:
    return replica.server.app[CHANNEL_BACKENDS]


async def kill(replica: TestClient, telegram: TelegramStandIn) -> None:
    """What SIGKILL leaves of a replica's messages: no more renewals, no work, and the
    calls it had sent taken by the platform."""
    await backends(replica).accepted.close()
    await backends(replica).work.close()
    assert telegram.outage is not None
    telegram.outage.set()

    async def calls_taken() -> bool:
        return telegram.held == 0

    await eventually(calls_taken, WAIT)


async def deliver(replica: TestClient, telegram: TelegramStandIn, update: dict[str, Any]) -> None:
    """Post an update as Telegram does, to this replica."""
    path = "/" + telegram.webhook["url"].split("/", 3)[3]
    headers = {SECRET_HEADER: telegram.webhook["secret_token"]}
    async with replica.post(path, json=update, headers=headers) as response:
        assert response.status == 200


def past_the_lease() -> float:
    return time.time() + LEASE_SECONDS + 1


def texts(telegram: TelegramStandIn) -> Counter[tuple[int, str]]:
    """The messages sent, by chat and text."""
    return Counter((sent["chat_id"], sent["text"]) for sent in telegram.of("sendMessage"))


async def all_done(*alive: TestClient) -> None:
    """Until the replicas hold nothing: every message answered and its record done."""

    async def nothing_held() -> bool:
        return not any(backends(replica).accepted.held for replica in alive)

    await eventually(nothing_held, WAIT)


def taken_over() -> float:
    page = generate_latest(REGISTRY).decode()
    return sample(page, "parley_channel_messages_taken_over_total", type="telegram")


async def turns_of(bot_api: TestClient, tenant: Tenant, story_id: str, session: str) -> int:
    await bot_api.server.app[RECORDER].idle()
    path = f"/stories/{story_id}/conversations/{session}"
    return len((await tenant.developer.ok("GET", path))["turns"])


async def test_an_answer_a_replica_died_sending_is_sent_on_by_another_each_part_once(
    aiohttp_client: Any, config: Config, bot_api: TestClient, alice: Tenant,
    telegram: TelegramStandIn, story: dict[str, str],
) -> None:  # fmt: skip
    """The menu is five calls: the victim dies with the third under way."""
    victim, survivor = await replicas(aiohttp_client, config, telegram, 2)
    owner = Api(victim, alice.tokens.developer_token)
    channel_id = await create_channel(owner, story["story"], "telegram", {"botToken": BOT_TOKEN})
    telegram.hang({4242}, passing=2)
    before = taken_over()

    await deliver(victim, telegram, message_update(1, "show me the menu"))

    async def third_call_in_hand() -> bool:
        return telegram.held == 1

    await eventually(third_call_in_hand, WAIT)
    await kill(victim, telegram)
    assert await backends(survivor).accepted.look(time.time()) == 0  # its holder may live
    assert await backends(survivor).accepted.look(past_the_lease()) == 1
    await all_done(survivor)

    sent = [(s.method, s.fields.get("text") or s.fields.get("photo")) for s in telegram.sent]
    assert sent[1:] == [
        ("sendMessage", MENU),
        ("sendMessage", "Size?"),
        ("sendPhoto", "https://img.test/margherita.jpg"),
        ("sendMessage", "Anything else?"),
        ("sendPhoto", "https://img.test/oven.jpg"),
    ]  # after setWebhook
    assert taken_over() == before + 1
    session = f"{channel_id}:4242:77"
    assert await turns_of(bot_api, alice, story["story"], session) == 1  # the same turn id
    assert telegram.refused == []


async def test_a_click_taken_over_is_answered_without_answering_the_click_late(
    aiohttp_client: Any, config: Config, bot_api: TestClient, alice: Tenant,
    telegram: TelegramStandIn, story: dict[str, str],
) -> None:  # fmt: skip
    """The click waits behind a message the victim dies sending; Telegram refuses to
    answer a click seconds old (400), which would stop the answer."""
    victim, survivor = await replicas(aiohttp_client, config, telegram, 2)
    owner = Api(victim, alice.tokens.developer_token)
    await create_channel(owner, story["story"], "telegram", {"botToken": BOT_TOKEN})
    telegram.hang({4242})

    await deliver(victim, telegram, message_update(1, "show me the menu"))
    await deliver(victim, telegram, click_update(2, "q:large"))

    async def menu_in_hand() -> bool:
        return telegram.held == 1

    await eventually(menu_in_hand, WAIT)
    await kill(victim, telegram)
    assert await backends(survivor).accepted.look(past_the_lease()) == 2
    await all_done(survivor)

    assert texts(telegram)[4242, "Large it is Ada."] == 1  # the click's sender: Ada alone
    assert telegram.of("answerCallbackQuery") == []


async def test_a_message_answered_is_never_taken_over_and_keeps_nothing(
    aiohttp_client: Any, config: Config, bot_api: TestClient, alice: Tenant,
    telegram: TelegramStandIn, story: dict[str, str], mongo_client: AsyncMongoClient,
) -> None:  # fmt: skip
    first, second = await replicas(aiohttp_client, config, telegram, 2)
    owner = Api(first, alice.tokens.developer_token)
    channel_id = await create_channel(owner, story["story"], "telegram", {"botToken": BOT_TOKEN})

    await deliver(first, telegram, message_update(1, "large"))
    await all_done(first)

    assert await backends(second).accepted.look(past_the_lease()) == 0
    assert texts(telegram) == {(4242, LARGE): 1}
    deliveries = mongo_client[config.integrations_database]["channel_deliveries"]
    (record,) = [d async for d in deliveries.find({"channelId": channel_id}, {"_id": 0})]
    assert set(record) == {"channelId", "deliveryId", "expiresAt", "doneAtMs"}


async def test_replicas_looking_at_once_take_each_message_once(
    aiohttp_client: Any, config: Config, bot_api: TestClient, alice: Tenant,
    telegram: TelegramStandIn, story: dict[str, str],
) -> None:  # fmt: skip
    """Three conversations of two messages each: the victim dies sending the first of
    each, the second waiting behind it. Which survivor answers which, and in which order
    a conversation's two come when both survivors take one, is theirs to say."""
    victim, *survivors = await replicas(aiohttp_client, config, telegram, 3)
    owner = Api(victim, alice.tokens.developer_token)
    channel_id = await create_channel(owner, story["story"], "telegram", {"botToken": BOT_TOKEN})
    chats = (1, 2, 3)
    telegram.hang(set(chats))
    update = 0
    for text in ("large", "show me the menu"):
        for chat in chats:
            update += 1
            await deliver(victim, telegram, message_update(update, text, chat=chat, user=chat))

    async def answers_in_hand() -> bool:
        return telegram.held == len(chats)

    await eventually(answers_in_hand, WAIT)
    await kill(victim, telegram)
    now = past_the_lease()
    taken = await asyncio.gather(*(backends(s).accepted.look(now) for s in survivors))
    await all_done(*survivors)

    assert sum(taken) == 2 * len(chats)
    sent = texts(telegram)
    assert {key: n for key, n in sent.items() if key[1] in (LARGE, MENU)} == {
        (chat, text): 1 for chat in chats for text in (LARGE, MENU)
    }
    for chat in chats:
        assert await turns_of(bot_api, alice, story["story"], f"{channel_id}:{chat}:{chat}") == 2
    assert telegram.refused == []
