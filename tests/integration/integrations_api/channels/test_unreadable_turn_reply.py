"""A channel's turn whose reply holds an answer integrations-api cannot read (a kind of
item or a version it does not know, shared/fulfillment.py) is a failed turn recorded on
the channel with its reason, as a turn bot-api did not answer is, and nothing is sent
that was guessed at."""

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from integrations_api.channels import sender
from integrations_api.channels.conversations import answer
from integrations_api.channels.platforms import PLATFORMS
from integrations_api.channels.repository import ChannelFields
from integrations_api.channels.service import ChannelBackends
from integrations_api.channels.turns import NatsTurns
from integrations_api.channels.work import Work
from integrations_api.stories.directory import NatsStoryDirectory
from shared import messaging
from shared.config import Config
from shared.events import Subjects
from support.channels import ChannelsInMemory, accepted
from support.platforms.telegram import message_update

SUBJECTS = Subjects("unreadable")
"""A namespace of its own: no bot-api of another test answers these turns."""
BOT = {"botToken": "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"}


@pytest.fixture
async def nats(config: Config) -> AsyncIterator[Client]:
    client = await messaging.connect(config.nats_url, "unreadable-reply-test")
    yield client
    await client.close()


@pytest.mark.parametrize(
    ("answered", "reason"),
    [
        (
            {"v": 1, "items": [{"type": "carousel", "cards": []}]},
            "unknown kind of answer item 'carousel'",
        ),
        ({"v": 2, "items": []}, "unknown version of an answer: 2"),
    ],
)
async def test_a_reply_whose_answer_cannot_be_read_is_a_failure_recorded_on_the_channel(
    nats: Client, answered: dict[str, object], reason: str
) -> None:
    async def bot_api(message: Msg) -> None:
        reply = {"v": 1, "status": 200, "body": "{}", "answer": answered}
        await message.respond(json.dumps(reply).encode())

    subscription = await nats.subscribe(SUBJECTS.channel_turn, cb=bot_api)
    channels = ChannelsInMemory()
    bot = await channels.insert("a" * 24, "s", "Pizza", "telegram", ChannelFields("Bot", BOT))
    (incoming,) = PLATFORMS["telegram"].read(
        bot.credentials, json.dumps(message_update(1, "hi")).encode()
    )
    try:
        async with sender.opened({}) as platforms:
            turns = NatsTurns(nats, SUBJECTS, wait_seconds=2, unanswered_seconds=5)
            stories = NatsStoryDirectory(nats, SUBJECTS)
            backends = ChannelBackends(channels, accepted(), stories, platforms, turns, Work(), 1)
            await answer(backends, bot, incoming, asyncio.Semaphore(1))
    finally:
        await subscription.unsubscribe()

    recorded = str(channels.channels[bot.id].error)
    assert recorded.startswith(f"bot-api's reply is unreadable: ChannelTurnReply.answer: {reason}")
