"""Channel messages, webhook delivery errors and change events on the scaled stack
(bench/scaled.py) while a fault strikes:

- the NATS node leading the event stream killed (SIGKILL);
- one of the two integrations-api replicas killed (SIGKILL).

Each fault has a story of its own: "Track" calls a webhook connection whose backend
(served here) answers every call 500 after HOOK_SECONDS, so each turn it answers is a
delivery error
reported over the stream, and EDITS interactions edited one by one during the fault,
each edit a change event. MESSAGES Telegram messages (one user each, the tests'
stand-in served here playing Telegram, answering each sendMessage after SEND_SECONDS
and posting an update again until it is answered 200) asking "Track", one every
MESSAGE_SECONDS; the fault FAULT_AT seconds in. Then,
every wait bounded, counted exactly:

- channel messages: the answers each user got at the stand-in (one each; none is lost,
  two a duplicate) and the turns each session has in the history;
- delivery errors: the webhook calls the backend saw beside the stream's delivery events
  of the connection (one each, no message id twice), and the durable consumer of
  integrations-api that records them with nothing left pending or unacknowledged;
- change events: the stream's events of each edit (one each), integrations-api's story
  consumer with nothing left, and every bot-api replica answering each edited phrase
  with its interaction (a replica refreshes only what an event names, so an event it
  missed leaves the old phrase).

The semantic stage is off. `python -m bench.event_faults`; make bench writes its section.
"""

import asyncio
import contextlib
import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

from bench.channels import TimedTelegram
from bench.query_load import upload_with
from bench.report import write_section
from bench.scaled import (
    BOT_TOKEN,
    Scaled,
    TelegramChannel,
    ask_each_replica,
    consumer_state,
    history_turns,
    last_sequence,
    outbox_empty,
    post_update,
    running_scaled,
    stream_events,
    stream_leader,
    telegram_channel,
    webhook_interaction,
)
from bench.stack import served
from integrations_api.messaging import DELIVERIES_CONSUMER, STORIES_CONSUMER
from shared.events import DeliveryResult, StoryChanged, decode
from tools.embedded import free_port

MESSAGES = 200
MESSAGE_SECONDS = 0.05
EDITS = 8
EDIT_SECONDS = 1.0
FAULT_AT = 3.0
HOOK_SECONDS = 0.2
SEND_SECONDS = 0.5
"""How long the webhook's backend and Telegram take to answer: so that at any moment
turns are in flight over NATS and answers in integrations-api's hands."""
TRACK = "where is my order"
ANSWER_SECONDS = 90.0
"""integrations-api asks bot-api for a turn again for up to 60 s (channels/turns.py), and
a message the killed replica held is taken over by the other within 25 s of the kill
(LEASE_SECONDS and SWEEP_SECONDS, channels/accepted.py), then answered in seconds."""
LATE_SECONDS = 15.0
"""How long the last answer is waited past for a late duplicate: above the 12 s after
which integrations-api asks again a turn it got no reply to."""
DRAINED_SECONDS = 90.0
"""An event a killed consumer held comes again after JetStream's ack wait (30 s)."""


@dataclass
class Backend:
    """The webhook's backend: every call answered 500 after HOOK_SECONDS, counted by
    session."""

    calls: Counter[str] = field(default_factory=Counter)

    async def handle(self, request: web.Request) -> web.Response:
        self.calls[(await request.json())["sessionId"]] += 1
        await asyncio.sleep(HOOK_SECONDS)
        return web.json_response({"error": "down"}, status=500)


@dataclass
class Setup:
    story_id: str
    edited: list[str]
    """The ids of the interactions the fault's edits change, in order."""
    connection_id: str
    channel: TelegramChannel


async def set_up(scaled: Scaled, telegram: TimedTelegram, hook_url: str) -> Setup:
    """A story with its edited interactions, and "Track" calling the connection to
    `hook_url`; its Telegram channel."""
    developer = scaled.tokens.developer_token
    edits = [
        {"name": f"Edit {k}", "userSays": [f"first phrase {k} of quuxly"]} for k in range(EDITS)
    ]
    async with scaled.bot(developer) as bot:
        story_id, edited = await upload_with(bot, edits)
    connection_id = await webhook_interaction(scaled, story_id, TRACK, hook_url)
    channel = await telegram_channel(scaled, telegram, story_id)
    return Setup(story_id, edited, connection_id, channel)


async def until(check: Callable[[], object], seconds: float, pause: float = 0.2) -> bool:
    """Whether `check` (awaited when it returns an awaitable) came true within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        outcome = check()
        if asyncio.iscoroutine(outcome):
            outcome = await outcome
        if outcome:
            return True
        await asyncio.sleep(pause)
    return False


async def ready(scaled: Scaled, setup: Setup, backend: Backend) -> int:
    """Once every replica has the story compiled and calls the connection (its view of
    the connection came over NATS), and bot-api published every event it stored: the
    stream's last sequence number then."""

    async def every_replica_calls() -> bool:
        await ask_each_replica(scaled, setup.story_id, TRACK, "ready")
        return all(backend.calls[f"ready-{n}"] for n in range(len(scaled.stack.bot_apis)))

    assert await until(every_replica_calls, 30, pause=0.5), "the connection never reached bot-api"
    assert await until(lambda: outbox_empty(scaled.config), 30), "bot-api's outbox kept events"
    return await last_sequence(scaled.config)


@dataclass
class Traffic:
    posted: dict[int, float] = field(default_factory=dict)
    """When each user's message was first posted."""
    unacknowledged: int = 0
    """Messages the platform gave up posting (never answered 200)."""
    posted_again: int = 0
    edits_answered: list[int] = field(default_factory=list)
    """The status of each edit, in order."""


async def post(platform: aiohttp.ClientSession, setup: Setup, user: int, traffic: Traffic) -> None:
    traffic.posted[user] = time.perf_counter()
    posts = await post_update(platform, setup.channel, user, TRACK)
    traffic.posted_again += max(0, posts - 1)
    traffic.unacknowledged += posts == 0


async def flow(scaled: Scaled, setup: Setup, strike: Callable[[], None]) -> Traffic:
    """The messages and the edits, the fault striking FAULT_AT seconds in."""
    traffic = Traffic()
    users = range(10_000, 10_000 + MESSAGES)
    developer = scaled.tokens.developer_token
    async with scaled.integrations() as platform, scaled.bot(developer) as bot:

        async def messages() -> None:
            posting = []
            for user in users:
                posting.append(asyncio.create_task(post(platform, setup, user, traffic)))
                await asyncio.sleep(MESSAGE_SECONDS)
            await asyncio.gather(*posting)

        async def edits() -> None:
            for number, interaction_id in enumerate(setup.edited):
                body = {"userSays": [f"brand new phrase number {number} for zorblax"]}
                path = f"/stories/{setup.story_id}/interactions/{interaction_id}"
                with contextlib.suppress(aiohttp.ClientError):
                    async with bot.put(path, json=body) as reply:
                        traffic.edits_answered.append(reply.status)
                await asyncio.sleep(EDIT_SECONDS)

        asyncio.get_running_loop().call_later(FAULT_AT, strike)
        await asyncio.gather(messages(), edits())
    return traffic


async def drained(scaled: Scaled) -> tuple[bool, int]:
    """Whether integrations-api's delivery and story consumers have nothing pending or
    unacknowledged (within DRAINED_SECONDS), and how many events they were sent again."""

    async def nothing_left() -> bool:
        for consumer in (DELIVERIES_CONSUMER, STORIES_CONSUMER):
            state = await consumer_state(scaled.config, consumer)
            if state.num_pending or state.num_ack_pending:
                return False
        return True

    done = await until(nothing_left, DRAINED_SECONDS, pause=1.0)
    states = [
        await consumer_state(scaled.config, c) for c in (DELIVERIES_CONSUMER, STORIES_CONSUMER)
    ]
    return done, sum(state.num_redelivered or 0 for state in states)


async def measure(
    scaled: Scaled, telegram_port: int, fault: str, strike: Callable[[], None]
) -> list[str]:
    telegram, backend = TimedTelegram(BOT_TOKEN), Backend()
    hooks = web.Application()
    hooks.router.add_post("/hook", backend.handle)
    hook_port = free_port()
    async with served(telegram.app(), telegram_port), served(hooks, hook_port):
        setup = await set_up(scaled, telegram, f"http://127.0.0.1:{hook_port}/hook")
        mark, calls_before = await ready(scaled, setup, backend), backend.calls.total()
        telegram.slow("sendMessage", SEND_SECONDS)
        traffic = await flow(scaled, setup, strike)

        def everyone_answered() -> bool:
            return all(telegram.answers.get(user) for user in traffic.posted)

        await until(everyone_answered, ANSWER_SECONDS)
        await asyncio.sleep(LATE_SECONDS)
        consumers_drained, redelivered = await drained(scaled)
        events = await stream_events(scaled.config, mark)
        replicas_answer = [
            await ask_each_replica(
                scaled, setup.story_id, f"brand new phrase number {k} for zorblax", f"edit{k}"
            )
            for k in range(EDITS)
        ]
    answers = Counter(len(telegram.answers.get(user, [])) for user in traffic.posted)
    latencies = [
        telegram.answers[u][0] - t for u, t in traffic.posted.items() if telegram.answers.get(u)
    ]
    turns = history_turns(scaled.config, setup.story_id)
    per_session = Counter(turns[(setup.channel.session(user), TRACK)] for user in traffic.posted)
    subjects = scaled.config.subjects
    deliveries = [
        e for e in events
        if e.subject == subjects.delivery_result
        and decode(DeliveryResult, e.data).connection_id == setup.connection_id
    ]  # fmt: skip
    changes = [decode(StoryChanged, e.data) for e in events if e.subject == subjects.story_changed]
    per_edit = Counter(
        sum(interaction_id in c.interaction_ids for c in changes if c.story_id == setup.story_id)
        for interaction_id in setup.edited
    )
    calls = backend.calls.total() - calls_before
    stale = sum(name != f"Edit {k}" for k, names in enumerate(replicas_answer) for name in names)
    doubled_ids = len(deliveries) - len({e.message_id for e in deliveries})
    return [
        f"| {fault}: channel messages | {MESSAGES} posted ({traffic.posted_again} posted again "
        f"after a failed post, {traffic.unacknowledged} never acknowledged); answers per user "
        f"{dict(sorted(answers.items()))}: **{answers[0]} lost, "
        f"{sum(n for k, n in answers.items() if k > 1)} doubled**; slowest answer "
        f"{max(latencies, default=0):.1f} s; turns per session in the history "
        f"{dict(sorted(per_session.items()))} |",
        f"| {fault}: webhook delivery errors | {calls} webhook calls, {len(deliveries)} delivery "
        f"events of the connection ({doubled_ids} message ids twice); **"
        f"{calls - len(deliveries)} lost**; integrations-api's consumers "
        f"{'drained' if consumers_drained else 'NOT drained'} ({redelivered} events sent "
        "again) |",
        f"| {fault}: change events | {len(traffic.edits_answered)} edits "
        f"({Counter(traffic.edits_answered)[200]} answered 200); events per edit "
        f"{dict(sorted(per_edit.items()))}; replica answers with the old phrase after "
        f"the edits: **{stale} of {EDITS * len(scaled.stack.bot_apis)}** |",
    ]


def table() -> str:
    load = os.getloadavg()[0]
    rows = []
    for semantic in (True, False):
        stage = "on (the default)" if semantic else "off"
        rows += [f"| {stage} {row}" for row in faults(semantic)]
    lines = [
        f"The scaled stack of `make scale` (rate limits off), started afresh for each setting "
        "of the semantic stage; per fault a "
        f'story whose "Track" calls a webhook connection answering 500 in {HOOK_SECONDS:g} s '
        f"(a delivery error per turn), {MESSAGES} Telegram messages asking it, one every "
        f"{MESSAGE_SECONDS:g} s through the gateway (each from a user of its own, posted "
        "again a second later until answered 200, as Telegram does; the stand-in answers a "
        f"sendMessage in {SEND_SECONDS:g} s), {EDITS} edits of other interactions "
        f"{EDIT_SECONDS:g} s apart; the fault {FAULT_AT:g} s in. Counted once every answer "
        f"came (or {ANSWER_SECONDS:g} s passed), {LATE_SECONDS:g} s more for late duplicates, "
        "and integrations-api's consumers drained. The messages the killed integrations-api "
        "held are taken over by the other once their leases pass (channels/accepted.py). "
        "The machine's 2 cores are shared by every "
        f"process and by other work (its load average was {load:.1f} as the bench began).",
        "",
        "| Semantic stage | Fault | Measured |",
        "|---|---|---|",
        *rows,
    ]
    return "\n".join(lines)


def faults(semantic: bool) -> list[str]:
    """The rows of each fault on a stack of its own, the semantic stage on or off."""
    telegram_port = free_port()
    settings = {"TELEGRAM_API_URL": f"http://127.0.0.1:{telegram_port}"}
    name = f"event-faults-{'on' if semantic else 'off'}"
    with running_scaled(name, semantic_matching=semantic, settings=settings) as scaled:
        nats = scaled.stack.nats
        leader = asyncio.run(stream_leader(scaled.config))
        node = nats.servers[nats.index(leader)]
        kill_node = lambda: os.kill(node.process.pid, signal.SIGKILL)  # noqa: E731
        rows = asyncio.run(
            measure(scaled, telegram_port, f"the stream's leader ({leader}) killed", kill_node)
        )
        node.process.wait()
        scaled.stack.start_again(leader)  # children start from the main thread
        victim = scaled.stack.integrations_apis[0]
        kill_replica = lambda: os.kill(victim.process.pid, signal.SIGKILL)  # noqa: E731
        rows += asyncio.run(
            measure(scaled, telegram_port, "one of 2 integrations-api killed", kill_replica)
        )
        victim.process.wait()
        scaled.stack.start_again(victim.name)
    return rows


TITLE = "Channels, delivery errors and change events under faults (make bench)"


def main() -> None:
    body = table()
    write_section("event-faults", TITLE, body)
    print(body)


if __name__ == "__main__":
    main()
