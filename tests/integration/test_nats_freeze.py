"""A channel's turn asked while NATS is frozen (SIGSTOP) is answered once NATS is back,
and answered once however often it was asked; with no bot-api at all, the turn is given
up within its bound and the message's failure recorded: the channel's `error`, a log
line and a metric (channels/turns.py, docs/reliability.md)."""

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient
from nats.aio.client import Client
from prometheus_client import REGISTRY, generate_latest

from bot_api.history.keys import RECORDER
from integrations_api.channels import sender
from integrations_api.channels.conversations import answer
from integrations_api.channels.platforms import PLATFORMS
from integrations_api.channels.repository import ChannelFields
from integrations_api.channels.service import ChannelBackends
from integrations_api.channels.turns import NatsTurns, TurnUnanswered, turn_id
from integrations_api.channels.work import Work
from integrations_api.stories.directory import NatsStoryDirectory
from shared import messaging
from shared.config import Config
from shared.events import ChannelTurn
from support.api import Tenant
from support.channels import ChannelsInMemory, accepted
from support.metrics import sample
from support.platforms.telegram import message_update
from support.walkthrough import pizza_story
from tools.embedded import ServerProcess, start_nats

FROZEN_SECONDS = 3.0
WAIT_SECONDS = 0.5
"""Each wait for a reply, in place of TURN_SECONDS: the freeze outlasts several."""
SESSION = "channel1:chat7:user7"
TURN_ID = turn_id("channel1", "1")
BOT = {"botToken": "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"}


@pytest.fixture
def nats_server(tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_nats(tmp_path / "jetstream", tmp_path)
    yield server
    os.kill(server.process.pid, signal.SIGCONT)
    server.stop()


@pytest.fixture
def nats_url(nats_server: ServerProcess) -> str:
    """This module's own server (conftest's is shared by every test), for freezing."""
    return nats_server.url


@pytest.fixture
async def nats(config: Config) -> AsyncIterator[Client]:
    client = await messaging.connect(config.nats_url, "integrations-api-test")
    yield client
    await client.close()


def turn(tenant: Tenant, story_id: str) -> ChannelTurn:
    return ChannelTurn(
        account_id=tenant.tokens.account_id,
        story_id=story_id,
        session_id=SESSION,
        source="telegram",
        query="a large pizza",
        trigger=None,
        goto=None,
        parameters={},
    )


async def test_a_turn_asked_while_nats_is_frozen_is_answered_once_when_it_is_back(
    alice: Tenant, bot_api: TestClient, nats: Client, config: Config, nats_server: ServerProcess
) -> None:
    story_id = await pizza_story(alice.developer)
    turns = NatsTurns(nats, config.subjects, wait_seconds=WAIT_SECONDS, unanswered_seconds=30)
    pid = nats_server.process.pid

    os.kill(pid, signal.SIGSTOP)
    asyncio.get_running_loop().call_later(FROZEN_SECONDS, os.kill, pid, signal.SIGCONT)
    reply = await turns.ask(turn(alice, story_id), TURN_ID)

    assert reply.status == 200, reply.body
    await bot_api.server.app[RECORDER].idle()
    transcript = await alice.developer.ok("GET", f"/stories/{story_id}/conversations/{SESSION}")
    assert len(transcript["turns"]) == 1  # asked several times, answered once


async def test_a_turn_nobody_answers_is_given_up_within_its_bound(
    nats: Client, config: Config
) -> None:
    """No bot-api subscribed: asked again after each `no responders`, then given up."""
    turns = NatsTurns(nats, config.subjects, wait_seconds=WAIT_SECONDS, unanswered_seconds=1)
    lone = ChannelTurn("a" * 24, "s", SESSION, "telegram", "hi", None, None, {})
    started = time.monotonic()

    with pytest.raises(TurnUnanswered, match="did not answer within 1 s"):
        await turns.ask(lone, TURN_ID)
    assert time.monotonic() - started < 10  # measured 1.0 s


def turns_failed() -> float:
    metrics = generate_latest(REGISTRY).decode()
    return sample(metrics, "parley_channel_turns_failed_total", type="telegram")


async def test_a_message_no_bot_api_answers_is_recorded_on_the_channel_and_counted(
    nats: Client, config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    channels = ChannelsInMemory()
    bot = await channels.insert("a" * 24, "s", "Pizza", "telegram", ChannelFields("Bot", BOT))
    turns = NatsTurns(nats, config.subjects, wait_seconds=WAIT_SECONDS, unanswered_seconds=1)
    (incoming,) = PLATFORMS["telegram"].read(
        bot.credentials, json.dumps(message_update(1, "hi")).encode()
    )
    before = turns_failed()

    async with sender.opened({}) as platforms:
        stories = NatsStoryDirectory(nats, config.subjects)
        backends = ChannelBackends(channels, accepted(), stories, platforms, turns, Work(), 1)
        await answer(backends, bot, incoming, asyncio.Semaphore(1))

    recorded = channels.channels[bot.id].error
    assert recorded == "bot-api did not answer within 1 s"
    assert turns_failed() == before + 1
    assert f"channel {bot.id}: no turn: {recorded}" in caplog.text
