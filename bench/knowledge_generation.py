"""How long /query takes to answer from a story's documents with generated answers on
(docs/knowledge-generation.md): against the tests' LLM stand-in answering at once
(streamed), and slower than `LLM_TIMEOUT_SECONDS` (its first word after 60 s, so every
turn gives up and sends the extractive answer); the same story with the setting off
beside them. bot-api runs as its own process, the stand-in in this one.
Run: `PYTHONPATH=tests python -m bench.knowledge_generation`."""

import asyncio
import dataclasses
import statistics
import time
from typing import Any

import aiohttp
from aiohttp import web

from bench.stack import Stack, running_stack, serve
from support.llm_standin import KEY, MODEL, LlmStandIn
from tools.embedded import free_port

REQUESTS = 200
AT_ONCE = (1, 20)
"""Turns in flight together: one (what a turn costs alone), and twenty (each slow one
holding its LLM call for the whole timeout while the others' turns share the 2 cores)."""
TIMEOUT_SECONDS = 0.5
"""The deadline measured against; the default 4 s gives the same overshoot, slower."""
SHOP = """# Returns

Goods bought in the shop may be returned within thirty days with their receipt. A refund is
paid to the card the goods were bought with.

# Exchanges

Goods may be exchanged for others within sixty days, receipt or not.
"""
QUESTION = "how many days do I have to return goods?"


async def start_standin(standin: LlmStandIn) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(standin.app())
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


async def story(http: aiohttp.ClientSession, name: str, generating: bool) -> str:
    body = {"name": name, "description": "", "settings": {"generateKnowledgeAnswers": generating}}
    async with http.post("/stories", json=body) as reply:
        story_id = str((await reply.json())["id"])
    headers = {"Content-Type": "text/markdown"}
    path = f"/stories/{story_id}/knowledge?title=Shop"
    async with http.post(path, data=SHOP.encode(), headers=headers) as reply:
        assert reply.status == 200, await reply.text()
    return story_id


async def answer_times(http: aiohttp.ClientSession, story_id: str, at_once: int) -> dict[str, Any]:
    """`REQUESTS` turns, `at_once` at a time, each in a session of its own."""
    gate = asyncio.Semaphore(at_once)
    outcomes: dict[str, int] = {}
    asking: list[float] = []

    async def ask(number: int) -> float:
        body = {"sessionId": f"b{number}", "storyId": story_id, "query": QUESTION}
        async with gate:
            started = time.perf_counter()
            async with http.post("/query", json=body) as reply:
                result = (await reply.json())["result"]
            seconds = time.perf_counter() - started
        generation = result["knowledge"].get("generation", {"outcome": "extractive"})
        outcomes[generation["outcome"]] = outcomes.get(generation["outcome"], 0) + 1
        asking.append(generation.get("seconds", 0.0))
        return seconds

    await asyncio.gather(*(ask(n) for n in range(5)))  # warm: the index built
    outcomes.clear()
    asking.clear()
    times = sorted(await asyncio.gather(*(ask(n) for n in range(REQUESTS))))
    asking.sort()
    return {
        "outcomes": outcomes,
        "llm_p99_ms": round(1000 * asking[int(0.99 * len(asking)) - 1], 1),
        "p50_ms": round(1000 * statistics.median(times), 1),
        "p99_ms": round(1000 * times[int(0.99 * len(times)) - 1], 1),
        "max_ms": round(1000 * times[-1], 1),
    }


async def measure(stack: Stack, standin: LlmStandIn) -> None:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        generating = await story(http, "Generating", True)
        extractive = await story(http, "Extractive", False)
        for at_once in AT_ONCE:
            print(f"{at_once} at once, setting off:", await answer_times(http, extractive, at_once))
            standin.shape = "stream"
            fast = await answer_times(http, generating, at_once)
            print(f"{at_once} at once, LLM at once (streamed):", fast)
            standin.shape, standin.slow_seconds = "slow", 60.0
            slow = await answer_times(http, generating, at_once)
            print(f"{at_once} at once, LLM slower than {TIMEOUT_SECONDS} s:", slow)
    standin.released.set()


async def run(stack: Stack) -> None:
    standin = LlmStandIn()
    runner, url = await start_standin(standin)
    config = dataclasses.replace(
        stack.config,
        llm_base_url=url,
        llm_api_key=KEY,
        llm_model=MODEL,
        llm_timeout_seconds=TIMEOUT_SECONDS,
    )
    bot_api = await asyncio.to_thread(serve, config, stack.directory)
    try:
        await measure(stack, standin)
        assert standin.problems == [], standin.problems[:3]
    finally:
        bot_api.stop()
        await runner.cleanup()


def main() -> None:
    with running_stack("generation", semantic_matching=False) as stack:
        stack.bot_api.stop()
        asyncio.run(run(stack))


if __name__ == "__main__":
    main()
