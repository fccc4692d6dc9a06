"""A Telegram channel (docs/channels.md) against /query, side by side in one run, at the
defaults (the semantic stage on) and with it off.

The stack as processes (bot-api and integrations-api on the embedded nx-27017 and
nats-server) with TELEGRAM_API_URL at the tests' Telegram stand-in, served here on
127.0.0.1 and noting when each answer arrives. The story: 20 generated interactions of
20 phrases (bench/synthetic.py), each answering one text, its phrase vectors landed;
the messages: reworded phrases and some noise (the fallback answers it). Measured, each
channel message beside the same message sent to POST /query:
- one user, SEQUENTIAL messages one after the other: the signed update posted until the
  answer's sendMessage reaches the stand-in;
- USERS users at once, ROUNDS rounds: answers per second and p95;
- the acknowledgement (the 200 the platform waits for) in both.
Every wait is bounded (ANSWER_SECONDS); an answer that does not come is counted as lost.
The stand-in runs in the bench's process, on the senders' event loop: one process less
on this 2-core machine, at the price of some of the bench's own waiting in the figures.
`python -m bench.channels`; make bench writes its section.
"""

import asyncio
import contextlib
import dataclasses
import os
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

from bench import eval_stories
from bench.query_load import upload
from bench.report import write_section
from bench.stack import Stack, running_stack, served
from bench.synthetic import queries, story_interactions
from integrations_api.channels.work import ACCOUNT_RUNNING
from tests.support.platforms.telegram import TelegramStandIn, message_update
from tools.embedded import free_port, start_service

INTERACTIONS = 20
PHRASES = 20
WARM_UP = 5
SEQUENTIAL = 50
USERS = 50
ROUNDS = 5
ANSWER_SECONDS = 30.0
"""Far above any answer seen (under 1 s at 50 users at once): a bound, not a verdict."""
BOT_TOKEN = "123456:bench-token"


@dataclass
class TimedTelegram(TelegramStandIn):
    """The stand-in, noting when each chat's answers arrive."""

    answers: dict[int, list[float]] = field(default_factory=dict)

    async def handle(self, request: web.Request) -> web.Response:
        reply = await super().handle(request)
        method = request.match_info["method"]
        if reply.status == 200 and method in ("sendMessage", "sendPhoto"):
            chat = int(self.sent[-1].fields["chat_id"])
            self.answers.setdefault(chat, []).append(time.perf_counter())
        return reply

    async def answer(self, chat: int, count: int) -> float | None:
        """When the chat's `count`-th answer arrived; None after ANSWER_SECONDS."""
        deadline = time.monotonic() + ANSWER_SECONDS
        while time.monotonic() < deadline:
            arrived = self.answers.get(chat, [])
            if len(arrived) >= count:
                return arrived[count - 1]
            await asyncio.sleep(0.001)
        return None


@dataclass
class Timings:
    """Seconds: each answer's latency, each acknowledgement, each burst's duration."""

    latency: list[float] = field(default_factory=list)
    ack: list[float] = field(default_factory=list)
    bursts: list[float] = field(default_factory=list)
    lost: int = 0


@dataclass
class Bench:
    telegram: TimedTelegram
    http: aiohttp.ClientSession
    stack: Stack
    story_id: str
    inbound: str
    secret: str
    update_id: int = 0

    async def channel_message(self, user: int, text: str, timings: Timings) -> None:
        """The user's message as Telegram posts it, timed until its answer arrives."""
        self.update_id += 1
        count = len(self.telegram.answers.get(user, [])) + 1
        headers = {"X-Telegram-Bot-Api-Secret-Token": self.secret}
        update = message_update(self.update_id, text, chat=user, user=user)
        started = time.perf_counter()
        async with self.http.post(self.inbound, json=update, headers=headers) as reply:
            assert reply.status == 200, await reply.text()
        timings.ack.append(time.perf_counter() - started)
        arrived = await self.telegram.answer(user, count)
        if arrived is None:
            timings.lost += 1
        else:
            timings.latency.append(arrived - started)

    async def query(self, user: int, text: str, timings: Timings) -> None:
        """The same message to POST /query with the public key, timed to its answer."""
        body = {"sessionId": f"query-{user}", "storyId": self.story_id, "query": text}
        headers = {"Authorization": f"Bearer {self.stack.tokens.public_key}"}
        started = time.perf_counter()
        async with self.http.post(f"{self.stack.url}/query", json=body, headers=headers) as reply:
            assert reply.status == 200, await reply.text()
            await reply.read()
        timings.latency.append(time.perf_counter() - started)


async def story(stack: Stack, http: aiohttp.ClientSession) -> str:
    interactions = [
        {**i, "responses": [{"type": "text", "messages": [f"About {i['name']}."]}]}
        for i in story_interactions(INTERACTIONS, phrases=PHRASES)
    ]
    story_id, _ = await upload(stack, interactions)
    if stack.config.semantic_matching:
        await eval_stories.vectors_landed(http, story_id)
    return story_id


async def channel(stack: Stack, integrations: str, story_id: str) -> str:
    """A Telegram channel of the story (which registers its webhook); its inbound URL."""
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    body = {"storyId": story_id, "type": "telegram", "name": "bench",
            "credentials": {"botToken": BOT_TOKEN}}  # fmt: skip
    async with aiohttp.ClientSession(integrations, headers=headers) as http:
        async with http.post("/v2/integrations/channels", json=body) as reply:
            created = await reply.json()
            assert reply.status == 201, created
        async with http.get(f"/v2/integrations/channels/{created['id']}") as reply:
            read = await reply.json()
    assert read["status"] == "active", read
    return str(read["inboundUrl"])


async def measure(bench: Bench, asked: list[str]) -> dict[str, Timings]:
    runs = {name: Timings() for name in ("channel", "query", "channel burst", "query burst")}
    warm = Timings()
    for text in asked[:WARM_UP]:
        await bench.channel_message(1, text, warm)
        await bench.query(1, text, warm)
    for text in asked[:SEQUENTIAL]:
        await bench.channel_message(1, text, runs["channel"])
        await bench.query(1, text, runs["query"])
    users = range(1000, 1000 + USERS)
    for round_number in range(ROUNDS):
        texts = [asked[(round_number * USERS + n) % len(asked)] for n in range(USERS)]
        senders = {"channel burst": bench.channel_message, "query burst": bench.query}
        for name, send in senders.items():
            started = time.perf_counter()
            await asyncio.gather(
                *(send(u, t, runs[name]) for u, t in zip(users, texts, strict=True))
            )
            runs[name].bursts.append(time.perf_counter() - started)
    assert not bench.telegram.refused, bench.telegram.refused
    return runs


@contextlib.asynccontextmanager
async def integrations_beside(stack: Stack) -> AsyncIterator[tuple[TimedTelegram, str]]:
    """The Telegram stand-in served here, and integrations-api (a process) calling it
    beside the stack; its URL."""
    telegram = TimedTelegram(BOT_TOKEN)
    port = free_port()
    config = dataclasses.replace(
        stack.config,
        integrations_api_port=free_port(),
        telegram_api_url=f"http://127.0.0.1:{port}",
    )
    env = {**os.environ, **config.as_env()}
    async with served(telegram.app(), port):
        integrations = await asyncio.to_thread(
            start_service, "integrations_api", config.integrations_api_port, env, stack.directory
        )
        try:
            yield telegram, integrations.url
        finally:
            integrations.stop()


async def run(stack: Stack) -> dict[str, Timings]:
    async with integrations_beside(stack) as (telegram, integrations):
        timeout = aiohttp.ClientTimeout(total=ANSWER_SECONDS)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            developer = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
            async with aiohttp.ClientSession(stack.url, headers=developer) as management:
                story_id = await story(stack, management)
            inbound = await channel(stack, integrations, story_id)
            secret = str(telegram.webhook["secret_token"])
            bench = Bench(telegram, http, stack, story_id, inbound, secret)
            asked = [q.replace('"', "") for q in queries(story_interactions(INTERACTIONS), 300)]
            return await measure(bench, asked)


def _ms(values: list[float], share: float) -> str:
    if not values:
        return "n/a"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000:.1f}"


def _median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f}" if values else "n/a"


def table() -> str:
    runs = {}
    for semantic in (True, False):
        with running_stack("channels", semantic_matching=semantic) as stack:
            runs[semantic] = asyncio.run(run(stack))
    lines = [
        f"A Telegram channel of a generated story ({INTERACTIONS} interactions of {PHRASES} "
        "phrases, its vectors landed, each answering one text) against the tests' Telegram "
        "stand-in on 127.0.0.1, beside POST /query with the public key asked the same "
        "messages in the same run (reworded phrases, some noise). Latency: from the signed "
        "update posted to the answer's sendMessage at the stand-in; for /query, the round "
        f"trip. One user: {SEQUENTIAL} messages one after the other (after {WARM_UP} to "
        f"warm up); at once: {USERS} users each sending one message, {ROUNDS} rounds. "
        "Acknowledgement: the 200 Telegram waits for. Overhead: channel minus /query medians. "
        "The stand-in and the senders share the bench's one event loop, so the figures at "
        f"{USERS} at once carry some of the bench's own waiting, the same for both columns.",
        "",
        "| semantic stage | measure | channel median (p95) | /query median (p95) "
        "| overhead | lost |",
        "|---|---|---|---|---|---|",
    ]
    shares = []
    for semantic, timings in runs.items():
        stage = "on (default)" if semantic else "off"
        channel, query = timings["channel"], timings["query"]
        burst, query_burst = timings["channel burst"], timings["query burst"]
        overhead = statistics.median(channel.latency) - statistics.median(query.latency)
        burst_overhead = statistics.median(burst.latency) - statistics.median(query_burst.latency)
        lines += [
            f"| {stage} | one user: latency (ms) | {_median_ms(channel.latency)} "
            f"({_ms(channel.latency, 0.95)}) | {_median_ms(query.latency)} "
            f"({_ms(query.latency, 0.95)}) | {overhead * 1000:+.1f} ms | {channel.lost} |",
            f"| {stage} | {USERS} at once: latency (ms) | {_median_ms(burst.latency)} "
            f"({_ms(burst.latency, 0.95)}) | {_median_ms(query_burst.latency)} "
            f"({_ms(query_burst.latency, 0.95)}) | {burst_overhead * 1000:+.1f} ms "
            f"| {burst.lost} |",
            f"| {stage} | {USERS} at once: answers/s (median round) "
            f"| {USERS / statistics.median(burst.bursts):.0f} "
            f"| {USERS / statistics.median(query_burst.bursts):.0f} | | |",
            f"| {stage} | acknowledgement, one user (ms) | {_median_ms(channel.ack)} "
            f"({_ms(channel.ack, 0.95)}) | | | |",
            f"| {stage} | acknowledgement, {USERS} at once (ms) | {_median_ms(burst.ack)} "
            f"({_ms(burst.ack, 0.95)}) | | | |",
        ]
        shares.append(statistics.median(query_burst.bursts) / statistics.median(burst.bursts))
    lines += [
        "",
        f"With {USERS} users at once the channel answers **{shares[0]:.0%}** of /query's rate "
        f"at the defaults ({shares[1]:.0%} with the semantic stage off). Likely reasons, not "
        f"measured apart: it runs at most {ACCOUNT_RUNNING} turns of one account at a time "
        "(channels/work.py), and each answer is a NATS request to bot-api and an HTTP call "
        "to the platform more.",
    ]
    return "\n".join(lines)


def main() -> None:
    body = table()
    write_section("channels", "Channels (make bench)", body)
    print(body)


if __name__ == "__main__":
    main()
