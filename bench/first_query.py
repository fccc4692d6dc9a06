"""The first /query of a story at the limits (5,000 interactions, 100,000 phrases, every
phrase vector stored): how long it takes, what it answers, and how much resident memory
bot-api's process peaks at meanwhile. A fresh bot-api process is started for the query,
so nothing of the upload is in its memory. Run: `python -m bench.first_query`."""

import asyncio
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench.capacity import resident_bytes
from bench.stack import Stack, running_stack, serve
from bench.synthetic import stored_story, story_interactions
from bench.vectors import random_vectors, store

INTERACTIONS = 4998
"""With the welcome and fallback interactions: QUOTA_INTERACTIONS_PER_STORY."""
PHRASES = 20
"""Per interaction, for 99,960 phrases: about QUOTA_PHRASES_PER_STORY."""
SEMANTIC_WAIT_SECONDS = 300


def peak_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


async def seed(stack: Stack, interactions: list[dict[str, Any]]) -> str:
    return await stored_story(stack.config, stack.tokens.account_id, interactions)


async def first_queries(stack: Stack, story_id: str, pid: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    before = resident_bytes(pid)
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:

        async def ask() -> tuple[int, dict[str, Any]]:
            body = {"sessionId": f"s{time.monotonic_ns()}", "storyId": story_id}
            body |= {"query": "i want to kalo the mine", "debug": True}
            async with http.post("/query", json=body) as reply:
                return reply.status, await reply.json()

        started = time.perf_counter()
        status, _ = await ask()
        first, first_status = time.perf_counter() - started, status
        while status == 503:
            status, _ = await ask()
        answered = time.perf_counter() - started
        semantic = None
        while time.perf_counter() - started < SEMANTIC_WAIT_SECONDS:
            status, body = await ask()
            result = body.get("result", {}) if status == 200 else {}
            candidates = result.get("debug", {}).get("candidates", [])
            if any(c.get("semantic") is not None for c in candidates):
                semantic = time.perf_counter() - started
                break
            await asyncio.sleep(0.5)
    return {
        "first_status": first_status,
        "first_seconds": first,
        "first_200_seconds": answered,
        "semantic_seconds": semantic,
        "before_mib": before / 2**20,
        "peak_mib": peak_bytes(pid) / 2**20,
        "resident_mib": resident_bytes(pid) / 2**20,
    }


def main() -> None:
    interactions = story_interactions(INTERACTIONS, PHRASES)
    with running_stack("first") as stack:
        started = time.perf_counter()
        story_id = asyncio.run(seed(stack, interactions))
        store(stack, random_vectors(interactions), story_id)
        print(f"uploaded in {time.perf_counter() - started:.0f} s")
        stack.bot_api.stop()
        fresh = serve(stack.config, stack.directory)
        try:
            print(asyncio.run(first_queries(stack, story_id, fresh.process.pid)))
        finally:
            fresh.stop()


if __name__ == "__main__":
    main()
