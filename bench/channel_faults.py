"""Channels under faults (docs/reliability.md, "Channels that lose or delay messages"),
the stack as processes at their defaults (bench/channels.py, the semantic stage off):

- NATS frozen by SIGSTOP for FREEZE_SECONDS, as the campaign froze it, one message
  posted every FREEZE_SECONDS / MESSAGES seconds of the freeze: each answered or lost,
  its latency, and the turns bot-api recorded for it;
- one channel's platform hanging on every send (the stand-in holds the calls to its
  chats) while HUNG messages come to it, then messages to another channel of the same
  account: their latency, beside the same with no outage.

`python -m bench.channel_faults`; make bench writes its section.
"""

import asyncio
import os
import signal
import statistics

import aiohttp

from bench.channels import (
    ANSWER_SECONDS,
    Bench,
    TimedTelegram,
    Timings,
    channel,
    integrations_beside,
)
from bench.query_load import upload
from bench.report import write_section
from bench.stack import Stack, running_stack
from bench.synthetic import queries, story_interactions
from bot_api.history.recorder import FLUSH_SECONDS
from integrations_api.channels.work import CHANNEL_RUNNING
from tests.support.waiting import eventually

FREEZE_SECONDS = 15.0
MESSAGES = 3
HUNG = 2 * CHANNEL_RUNNING + 4
"""More than the account's 8 slots and the channel's 8 together."""
SAMPLES = 10
INTERACTIONS = 10


async def frozen_nats(stack: Stack, bench: Bench, text: str) -> tuple[Timings, list[int]]:
    """The messages posted during the freeze, and the turns recorded for each."""
    timings = Timings()
    pid = stack.nats.process.pid
    users = range(5000, 5000 + MESSAGES)
    os.kill(pid, signal.SIGSTOP)
    asyncio.get_running_loop().call_later(FREEZE_SECONDS, os.kill, pid, signal.SIGCONT)
    posted = []
    for user in users:
        posted.append(asyncio.create_task(bench.channel_message(user, text, timings)))
        await asyncio.sleep(FREEZE_SECONDS / MESSAGES)
    await asyncio.gather(*posted)
    await asyncio.sleep(FLUSH_SECONDS + 1)  # the history is written in batches
    channel_id = bench.inbound.rsplit("/", 1)[-1]
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    turns = []
    async with aiohttp.ClientSession(stack.url, headers=headers) as management:
        for user in users:
            path = f"/stories/{bench.story_id}/conversations/{channel_id}:{user}:{user}"
            async with management.get(path) as reply:
                turns.append(len((await reply.json()).get("turns", [])))
    return timings, turns


async def hanging_platform(
    down: Bench, up: Bench, telegram: TimedTelegram, text: str
) -> tuple[Timings, Timings, int]:
    """The other channel's latency without and with the outage, and how many of the
    hanging channel's messages were answered once it ended."""
    calm, during = Timings(), Timings()
    for _ in range(SAMPLES):
        await up.channel_message(1, text, calm)
    chats = range(7000, 7000 + HUNG)
    outage = telegram.hang(set(chats))
    waiting = [asyncio.create_task(down.channel_message(chat, text, Timings())) for chat in chats]

    async def channel_held() -> bool:
        return telegram.held >= CHANNEL_RUNNING

    await eventually(channel_held, ANSWER_SECONDS)
    for _ in range(SAMPLES):
        await up.channel_message(1, text, during)
    outage.set()
    await asyncio.gather(*waiting)
    answered = sum(len(telegram.answers.get(chat, [])) for chat in chats)
    return calm, during, answered


async def run(stack: Stack) -> list[str]:
    async with integrations_beside(stack) as (telegram, integrations):
        timeout = aiohttp.ClientTimeout(total=ANSWER_SECONDS)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            interactions = [
                {**i, "responses": [{"type": "text", "messages": [f"About {i['name']}."]}]}
                for i in story_interactions(INTERACTIONS)
            ]
            story_id, _ = await upload(stack, interactions)
            text = queries(story_interactions(INTERACTIONS), 1)[0].replace('"', "")
            benches = []
            for _ in range(2):
                inbound = await channel(stack, integrations, story_id)
                secret = str(telegram.webhook["secret_token"])
                benches.append(Bench(telegram, http, stack, story_id, inbound, secret))
            down, up = benches
            calm, during, answered = await hanging_platform(down, up, telegram, text)
            freeze, turns = await frozen_nats(stack, up, text)
    return [
        f"| NATS frozen {FREEZE_SECONDS:g} s, {MESSAGES} messages posted during it "
        f"| answered {len(freeze.latency)} of {MESSAGES}, lost {freeze.lost}; latencies "
        f"{', '.join(f'{s:.1f}' for s in sorted(freeze.latency, reverse=True))} s; turns "
        f"recorded per message "
        f"{turns} |",
        f"| another channel of the account, no outage (median of {SAMPLES}) "
        f"| {statistics.median(calm.latency) * 1000:.0f} ms |",
        f"| another channel of the account while {HUNG} messages hang on one platform "
        f"(median, max of {SAMPLES}) | {statistics.median(during.latency) * 1000:.0f} ms, "
        f"{max(during.latency) * 1000:.0f} ms; lost {during.lost} |",
        f"| the hanging channel's {HUNG} messages once the outage ended | {answered} answered |",
    ]


def table() -> str:
    with running_stack("channel-faults", semantic_matching=False) as stack:
        rows = asyncio.run(run(stack))
    return "\n".join(["| Fault | Measured |", "|---|---|", *rows])


def main() -> None:
    body = table()
    write_section("channel-faults", "Channels under faults (make bench)", body)
    print(body)


if __name__ == "__main__":
    main()
