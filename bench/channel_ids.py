"""How long a stranger's call to a channel's inbound URL takes when the id is a
channel's and when it is no channel's (issue 29: the answer is the same 401, so time is
the only tell left).

The stack as processes (bot-api, integrations-api on the embedded nx-27017 and
nats-server) with the inbound failure limits off (`AUTH_FAILURE_RATE=0`: one address
sends every call here); a Slack and a WhatsApp channel, each checking a signature over
the whole body, and ids of no channel. Each call carries a signature of the right shape
and time but the wrong secret, so the channels compute it; ROUNDS rounds, the targets
interleaved within each round so the machine's noise falls on all alike.
`python -m bench.channel_ids`; make bench writes its section.
"""

import asyncio
import dataclasses
import hashlib
import hmac
import json
import os
import statistics
import time

import aiohttp

from bench.report import write_section
from bench.stack import Stack, running_stack
from tools.embedded import ServerProcess, free_port, start_service

ROUNDS = 200
BODIES = {"1 KiB": 1024, "1 MiB": 1000 * 1024}
"""A message's size, and the largest body the inbound URL takes (INBOUND_BYTES)."""
UNKNOWN = ("0123456789abcdef0123456789abcdef", "65f0c0ffee65f0c0ffee0042")
SLACK = {"botToken": "xoxb-1-2-bench", "signingSecret": "8f742231b10e8888abcd99yyyzzz85a5"}
WHATSAPP = {"accessToken": "EAAbench", "phoneNumberId": "106540352242922",
            "appSecret": "6c8d1e4a0b2f3c5d7e9f1a3b5c7d9e1f", "verifyToken": "bench"}  # fmt: skip


def body_of(size: int) -> bytes:
    padding = "x" * max(0, size - 64)
    return json.dumps({"type": "event_callback", "padding": padding}).encode()


def wrongly_signed(body: bytes) -> dict[str, str]:
    """Slack's and Meta's signature headers, current, of the wrong secret."""
    stamp = str(int(time.time()))
    slack = hmac.new(b"wrong", f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    meta = hmac.new(b"wrong", body, hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": f"v0={slack}",
        "X-Hub-Signature-256": f"sha256={meta}",
    }


async def channels(stack: Stack, integrations: str) -> dict[str, str]:
    """A Slack and a WhatsApp channel of a new story: target name -> id."""
    developer = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(headers=developer) as http:
        story = {"name": "Ids", "description": ""}
        async with http.post(f"{stack.url}/stories", json=story) as reply:
            created = await reply.json()
            assert reply.status in (200, 201), created
            story_id = created["id"]
        made = {}
        for kind, credentials in (("slack", SLACK), ("whatsapp", WHATSAPP)):
            body = {"storyId": story_id, "type": kind, "name": kind, "credentials": credentials}
            async with http.post(f"{integrations}/v2/integrations/channels", json=body) as reply:
                assert reply.status == 201, await reply.text()
                made[f"{kind} channel"] = (await reply.json())["id"]
    return made


async def measure(integrations: str, targets: dict[str, str]) -> dict[str, dict[str, list[float]]]:
    """Seconds of each call, per body size and target; every answer must be a 401."""
    timings: dict[str, dict[str, list[float]]] = {size: {} for size in BODIES}
    async with aiohttp.ClientSession() as http:
        for size, length in BODIES.items():
            body = body_of(length)
            for _ in range(ROUNDS):
                for name, channel_id in targets.items():
                    headers = wrongly_signed(body)
                    started = time.perf_counter()
                    url = f"{integrations}/v2/channels/{channel_id}"
                    async with http.post(url, data=body, headers=headers) as reply:
                        await reply.read()
                    timings[size].setdefault(name, []).append(time.perf_counter() - started)
                    assert reply.status == 401, (name, reply.status)
    return timings


async def run(stack: Stack) -> dict[str, dict[str, list[float]]]:
    port = free_port()
    config = dataclasses.replace(stack.config, integrations_api_port=port, auth_failure_rate=0.0)
    env = {**os.environ, **config.as_env()}
    integrations: ServerProcess | None = None
    try:
        integrations = await asyncio.to_thread(
            start_service, "integrations_api", port, env, stack.directory
        )
        targets = await channels(stack, integrations.url)
        targets |= {f"no channel ({len(i)} digits)": i for i in UNKNOWN}
        return await measure(integrations.url, targets)
    finally:
        if integrations is not None:
            integrations.stop()


def _ms(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


def table() -> str:
    with running_stack("channel-ids", semantic_matching=False) as stack:
        timings = asyncio.run(run(stack))
    lines = [
        f"A stranger's POST to `/v2/channels/<id>` ({ROUNDS} rounds, targets interleaved, "
        "one address, failure limits off), a Slack and a WhatsApp signature of the right "
        "shape but the wrong secret: every answer the same 401. Difference: the target's "
        "median minus the median of the calls to no channel.",
        "",
        "| body | target | median (ms) | p95 (ms) | difference (ms) |",
        "|---|---|---|---|---|",
    ]
    for size, by_target in timings.items():
        unknown = [t for name, ts in by_target.items() if name.startswith("no") for t in ts]
        baseline = statistics.median(unknown)
        for name, values in by_target.items():
            median = statistics.median(values)
            lines.append(
                f"| {size} | {name} | {median * 1000:.2f} | {_ms(values, 0.95):.2f} "
                f"| {(median - baseline) * 1000:+.2f} |"
            )
    return "\n".join(lines)


def main() -> None:
    body = table()
    write_section("channel-ids", "A channel's id: known or not, by time (make bench)", body)
    print(body)


if __name__ == "__main__":
    main()
