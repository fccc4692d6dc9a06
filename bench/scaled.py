"""The stack of `make scale` (tools/scale_stack.py) for the benches and tests that measure
it through its gateway: three bot-api and two integrations-api processes, a three-node
NATS cluster and nx-27017, on a var dir of their own, with an account, the rate limits
off (a bench measures the service, not its limits) and loopback webhooks allowed.

Clients reach the services as the world does, through nginx on HTTPS (its certificate is
self-signed) with the host name of the service; what a fault did is counted where it
lands: the history's turns in MongoDB, the event stream and its consumers in JetStream.
"""

import asyncio
import contextlib
import os
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import aiohttp
from nats.js.api import ConsumerInfo
from pymongo import MongoClient

from bench.stack import create_account
from shared import messaging
from shared.auth import IssuedTokens
from shared.config import Config
from shared.mongo import Document
from tests.support.platforms.telegram import TelegramStandIn, message_update
from tools.embedded import free_port
from tools.local_stack import LOOPBACK
from tools.scale_stack import ScaledStack, start_scaled_stack

RATES_OFF = {
    "QUERY_RATE": "0",
    "QUERY_CLIENT_RATE": "0",  # every client of a bench comes from 127.0.0.1
    "QUERY_SESSION_RATE": "0",
    "MANAGEMENT_RATE": "0",
}
BOT_TOKEN = "123456:scaled-bench-token"
PLATFORM_TRIES = 10
PLATFORM_RETRY_SECONDS = 1.0


@dataclass
class Scaled:
    stack: ScaledStack
    tokens: IssuedTokens
    var: Path
    """Its data and logs (`logs/`)."""

    @property
    def config(self) -> Config:
        return self.stack.config

    @property
    def gateway_url(self) -> str:
        """Where nginx listens; the host name in each request picks the service."""
        return f"https://127.0.0.1:{self.stack.gateway.https_port}"

    def bot(self, token: str, connections: int = 100) -> aiohttp.ClientSession:
        """A client of bot-api through the gateway, calling with `token`."""
        return self._client(self.stack.gateway.bot_host, token, connections)

    def integrations(self, token: str | None = None) -> aiohttp.ClientSession:
        """A client of integrations-api through the gateway (a platform calls without a
        token)."""
        return self._client(self.stack.gateway.integrations_host, token, 100)

    def _client(self, host: str, token: str | None, connections: int) -> aiohttp.ClientSession:
        headers = {"Host": host}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return aiohttp.ClientSession(
            self.gateway_url,
            headers=headers,
            connector=aiohttp.TCPConnector(ssl=False, limit=connections),
        )


@contextlib.contextmanager
def running_scaled(
    name: str, semantic_matching: bool = True, settings: Mapping[str, str] | None = None
) -> Iterator[Scaled]:
    """The scaled stack with the account `name` (also its DATABASE_PREFIX), the semantic
    stage on or off, and these further `settings`, until the block ends."""
    with tempfile.TemporaryDirectory(prefix="parley-scaled-") as temporary:
        env = {
            **os.environ,
            **RATES_OFF,
            "DATABASE_PREFIX": name,
            "SEMANTIC_MATCHING": "on" if semantic_matching else "off",
            "WEBHOOK_ALLOW": LOOPBACK,
            **(settings or {}),
        }
        var = Path(temporary)
        stack = start_scaled_stack(var, env, (free_port(), free_port()))
        try:
            yield Scaled(stack, asyncio.run(create_account(stack.config, name)), var)
        finally:
            stack.stop()


def history_turns(config: Config, story_id: str) -> Counter[tuple[str, str]]:
    """How many turns the history holds of each (session, text) of the story."""
    client: MongoClient[Document] = MongoClient(config.mongodb_url)
    with client:
        turns = client[config.bot_database]["turns"]
        return Counter(
            (turn["sessionId"], turn["query"])
            for turn in turns.find({"storyId": story_id}, {"sessionId": 1, "query": 1})
        )


def outbox_empty(config: Config) -> bool:
    """Whether bot-api has published every event it stored (shared/outbox.py)."""
    client: MongoClient[Document] = MongoClient(config.mongodb_url)
    with client:
        return client[config.bot_database]["outbox"].count_documents({}) == 0


@dataclass(frozen=True)
class StreamEvent:
    subject: str
    message_id: str
    """Its `Nats-Msg-Id` (the outbox id it was published from)."""
    data: bytes


async def last_sequence(config: Config) -> int:
    """The sequence number of the newest event in the deployment's stream."""
    client = await messaging.connect(config.nats_url, "bench-stream-reader")
    try:
        return (await client.jetstream().stream_info(config.subjects.stream)).state.last_seq
    finally:
        await client.close()


async def stream_events(config: Config, after: int = 0) -> list[StreamEvent]:
    """The events the deployment's stream holds past the sequence number `after`, in
    order."""
    client = await messaging.connect(config.nats_url, "bench-stream-reader")
    try:
        jetstream = client.jetstream()
        state = (await jetstream.stream_info(config.subjects.stream)).state
        events = []
        for sequence in range(max(after + 1, state.first_seq), state.last_seq + 1):
            message = await jetstream.get_msg(config.subjects.stream, sequence)
            headers = message.headers or {}
            events.append(
                StreamEvent(
                    str(message.subject), headers.get("Nats-Msg-Id", ""), message.data or b""
                )
            )
        return events
    finally:
        await client.close()


async def consumer_state(config: Config, consumer: str) -> ConsumerInfo:
    """What the durable consumer `consumer` (its name without the namespace) has left."""
    client = await messaging.connect(config.nats_url, "bench-consumer-reader")
    try:
        durable = config.subjects.consumer(consumer)
        info: ConsumerInfo = await client.jetstream().consumer_info(config.subjects.stream, durable)
        return info
    finally:
        await client.close()


async def stream_leader(config: Config) -> str:
    """The name of the NATS node leading the deployment's stream."""
    client = await messaging.connect(config.nats_url, "bench-stream-reader")
    try:
        info = await client.jetstream().stream_info(config.subjects.stream)
    finally:
        await client.close()
    assert info.cluster is not None and info.cluster.leader is not None, info
    return info.cluster.leader


@dataclass(frozen=True)
class TelegramChannel:
    id: str
    inbound_path: str
    """Where Telegram posts its updates, on the integrations host."""
    secret: str
    """The secret token Telegram sends with each."""

    def session(self, user: int) -> str:
        """The session of a user's private chat (chat and user ids are the same)."""
        return f"{self.id}:{user}:{user}"


async def telegram_channel(
    scaled: Scaled, telegram: TelegramStandIn, story_id: str
) -> TelegramChannel:
    """A Telegram channel of the story, made through the gateway; its webhook registered
    at the stand-in (TELEGRAM_API_URL), with BOT_TOKEN."""
    body = {"storyId": story_id, "type": "telegram", "name": "scaled",
            "credentials": {"botToken": BOT_TOKEN}}  # fmt: skip
    async with scaled.integrations(scaled.tokens.developer_token) as http:
        async with http.post("/v2/integrations/channels", json=body) as reply:
            assert reply.status == 201, await reply.text()
            channel_id = (await reply.json())["id"]
        async with http.get(f"/v2/integrations/channels/{channel_id}") as reply:
            read = await reply.json()
    assert read["status"] == "active", read
    inbound = urlparse(read["inboundUrl"]).path
    return TelegramChannel(channel_id, inbound, str(telegram.webhook["secret_token"]))


async def post_update(
    platform: aiohttp.ClientSession, channel: TelegramChannel, user: int, text: str
) -> int:
    """The user's message posted through the gateway as Telegram posts an update: again,
    a second later, until it is answered 200 (at most PLATFORM_TRIES times). The posts it
    took; 0 when none was answered 200."""
    headers = {"X-Telegram-Bot-Api-Secret-Token": channel.secret}
    update = message_update(user, text, chat=user, user=user)
    for attempt in range(1, PLATFORM_TRIES + 1):
        with contextlib.suppress(aiohttp.ClientError, TimeoutError):
            async with platform.post(channel.inbound_path, json=update, headers=headers) as reply:
                if reply.status == 200:
                    return attempt
        await asyncio.sleep(PLATFORM_RETRY_SECONDS)
    return 0


async def webhook_interaction(scaled: Scaled, story_id: str, says: str, hook_url: str) -> str:
    """An interaction "Track" of the story answering `says` with a text after calling
    `hook_url` through a webhook connection of the story; the connection's id."""
    developer = scaled.tokens.developer_token
    async with scaled.bot(developer) as bot, scaled.integrations(developer) as integrations:
        hook = {"name": "Orders", "url": hook_url, "storyId": story_id}
        async with integrations.post("/v2/integrations/webhook", json=hook) as reply:
            assert reply.status == 201, await reply.text()
            connection_id = str((await reply.json())["id"])
        track = {"name": "Track", "userSays": [says], "webhook": connection_id,
                 "responses": [{"type": "text", "messages": ["Let me look."]}]}  # fmt: skip
        async with bot.post(f"/stories/{story_id}/interactions", json=track) as reply:
            assert reply.status == 200, await reply.text()
    return connection_id


async def ask_each_replica(scaled: Scaled, story_id: str, text: str, session: str) -> list[str]:
    """The name of the interaction each bot-api replica answers `text` with, asked
    directly (not through the gateway) in the session `session`-<its number>."""
    headers = {"Authorization": f"Bearer {scaled.tokens.public_key}"}
    names = []
    async with aiohttp.ClientSession(headers=headers) as http:
        for number, replica in enumerate(scaled.stack.bot_apis):
            body = {"sessionId": f"{session}-{number}", "storyId": story_id, "query": text}
            async with http.post(f"{replica.url}/query", json=body) as reply:
                assert reply.status == 200, await reply.text()
                names.append((await reply.json())["result"]["interaction"]["name"])
    return names
