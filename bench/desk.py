"""The agent desk (docs/teams.md "The agent desk"): how long a user's message takes from
the channel to the open desk's stream.

The stack as processes (bot-api and integrations-api on the embedded nx-27017 and
nats-server, bench/channels.py's `integrations_beside`, with its Telegram stand-in); a
story whose "a person please" hands over; one Telegram user hands over, then sends
MESSAGES messages one after the other, each while the desk's stream (Server-Sent Events,
read by an HTTP client as the desk page reads it) is open. Measured: from the signed
update posted to the channel's inbound URL until the stream delivers the message's
line. Every wait is bounded (LINE_SECONDS); a line that does not come is counted lost.
`python -m bench.desk`; make bench writes its section.
"""

import asyncio
import statistics
import time

import aiohttp

from bench.channels import channel, integrations_beside
from bench.report import write_section
from bench.stack import Stack, running_stack
from tests.support.desk import DeskReader, desk_stream
from tests.support.platforms.telegram import message_update
from tools.embedded import free_port

MESSAGES = 100
WARM_UP = 5
LINE_SECONDS = 10.0
"""Far above any line seen: a bound, not a verdict."""
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
GOAL_SECONDS = 1.0


async def handoff_story(stack: Stack, integrations: str) -> str:
    developer = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(headers=developer) as http:
        async with http.post(f"{stack.url}/stories", json={"name": "Desk", "description": ""}) as r:
            story_id = str((await r.json())["id"])
        hook = {"storyId": story_id, "name": "Desk", "url": f"http://127.0.0.1:{free_port()}/"}
        async with http.post(f"{integrations}/v2/integrations/webhook", json=hook) as r:
            connection_id = (await r.json())["id"]
        person = {
            "name": "Person",
            "userSays": ["a person please"],
            "responses": [
                {"type": "text", "messages": ["Handing you over."]},
                {"type": "handoff", "connection": connection_id},
            ],
        }
        for _ in range(50):  # the connection reaches bot-api's view over the stream
            async with http.post(f"{stack.url}/stories/{story_id}/interactions", json=person) as r:
                if r.status < 300:
                    return story_id
            await asyncio.sleep(0.1)
    raise RuntimeError("bot-api never learned of the handoff connection")


async def heard(desk: DeskReader, text: str) -> bool:
    while (event := await desk.event(LINE_SECONDS)) is not None:
        if isinstance(event, dict) and event["entry"] and event["entry"]["text"] == text:
            return True
    return False


async def run(stack: Stack) -> tuple[list[float], int]:
    async with integrations_beside(stack) as (telegram, integrations):
        story_id = await handoff_story(stack, integrations)
        inbound = await channel(stack, integrations, story_id)
        secret = {SECRET_HEADER: str(telegram.webhook["secret_token"])}
        token = stack.tokens.developer_token
        latencies: list[float] = []
        lost = 0
        async with (
            aiohttp.ClientSession() as http,
            desk_stream(stack.url, token, story_id) as desk,
        ):

            async def send(update_id: int, text: str) -> float | None:
                started = time.perf_counter()
                async with http.post(inbound, json=message_update(update_id, text), headers=secret):
                    pass
                try:
                    arrived = await heard(desk, text)
                except TimeoutError:
                    arrived = False
                return time.perf_counter() - started if arrived else None

            assert await send(1, "a person please") is not None
            for n in range(2, 2 + WARM_UP + MESSAGES):
                took = await send(n, f"message {n}")
                if n < 2 + WARM_UP:
                    continue
                if took is None:
                    lost += 1
                else:
                    latencies.append(took)
        return latencies, lost


def _ms(ordered: list[float], share: float) -> str:
    return f"{ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000:.1f}"


def _row(semantic: bool) -> str:
    """One configuration's row of the table."""
    with running_stack("desk", semantic_matching=semantic) as stack:
        latencies, lost = asyncio.run(run(stack))
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("inf")
    verdict = "met" if p95 <= GOAL_SECONDS and not lost else "missed"
    stage = "on (the default)" if semantic else "off"
    return (
        f"| {stage} | {len(latencies)} | {statistics.median(ordered) * 1000:.1f} | "
        f"{_ms(ordered, 0.95)} | {_ms(ordered, 0.99)} | {ordered[-1] * 1000:.1f} | "
        f"{lost} | {verdict} |"
    )


def table() -> str:
    """The default configuration (the semantic stage on) and the stage off, one after
    the other in one run."""
    rows = [_row(semantic) for semantic in (True, False)]
    return "\n".join(
        [
            "A Telegram user's message, from the signed update posted to the channel's "
            "inbound URL (integrations-api, then bot-api over NATS) to its line on the "
            "agent desk's open stream (Server-Sent Events read by an HTTP client), the "
            f"conversation handed over; {MESSAGES} messages one after the other after "
            f"{WARM_UP} to warm up, with the semantic stage on (the default) and off. "
            f"Goal: p95 within {GOAL_SECONDS:g} s (issue 33).",
            "",
            "| semantic stage | messages | median (ms) | p95 (ms) | p99 (ms) | max (ms) | lost "
            "| goal |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


TITLE = "The agent desk: a channel's message to the open desk (make bench)"

if __name__ == "__main__":
    write_section("desk", TITLE, table())
