"""The largest plain list at the quotas: a story of 5,000 interactions (the interaction
quota) of 20 phrases each (the 100,000-phrase quota spread over them), listed whole while
/healthz is pinged every 10 ms from another process. `python -m bench.lists`; its figures
are in docs/reliability.md "Lists"."""

import asyncio
import time
from typing import Any

import aiohttp

from bench.query_load import upload
from bench.stack import Stack, running_stack
from bench.synthetic import story_interactions

INTERACTIONS = 5000
"""The quota, the welcome and fallback interactions included."""
PHRASES = 20
PING_EVERY_SECONDS = 0.01
ROUNDS = 5


def with_responses(interaction: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "text", "messages": ["Here is what I found for {{default_name}}."] * 3}
    return {**interaction, "responses": [text], "action": "lookup"}


async def probe(url: str, stop: asyncio.Event) -> list[float]:
    """Each /healthz ping's delay from when it was due."""
    delays: list[float] = []
    async with aiohttp.ClientSession() as session:
        due = time.perf_counter()
        while not stop.is_set():
            async with session.get(f"{url}/healthz") as reply:
                await reply.read()
            delays.append(time.perf_counter() - due)
            due += PING_EVERY_SECONDS
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
    return delays


async def list_whole(stack: Stack, story_id: str) -> tuple[float, float, int]:
    """Seconds the list took, the largest /healthz delay meanwhile, bytes answered."""
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    stop = asyncio.Event()
    pings = asyncio.create_task(probe(stack.url, stop))
    await asyncio.sleep(0.2)
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        started = time.perf_counter()
        async with http.get(f"/stories/{story_id}/interactions") as reply:
            body = await reply.read()
            assert reply.headers["X-Total-Count"] == str(INTERACTIONS)
        took = time.perf_counter() - started
    await asyncio.sleep(0.2)
    stop.set()
    return took, max(await pings), len(body)


def main() -> None:
    with running_stack("lists", semantic_matching=False) as stack:
        started = time.perf_counter()
        interactions = story_interactions(INTERACTIONS - 2, phrases=PHRASES)
        story_id, _ = asyncio.run(upload(stack, [with_responses(i) for i in interactions]))
        print(f"uploaded {INTERACTIONS} interactions in {time.perf_counter() - started:.0f} s")
        for _ in range(ROUNDS):
            took, stall, size = asyncio.run(list_whole(stack, story_id))
            print(f"list {size / 1e6:.1f} MB in {took * 1000:.0f} ms; /healthz max delay "
                  f"{stall * 1000:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
