"""/query with the history on and off, side by side in one run, and the bytes a turn
takes in MongoDB (docs/history.md).

Two stories of the same 150 × 99 generated interactions in one bot-api process, one
with `history` on (the default), one off; wrk drives each in turn for three rounds, and
before each round the recorder's backlog is let drain (`parley_history_backlog` 0), so
no round pays for another's writes.
"""

import asyncio
import statistics
import time
from typing import Any

import aiohttp
import bson
from pymongo import MongoClient

from bench.query_load import CONNECTIONS, ROUNDS, SECONDS, upload, wrk, wrk_script
from bench.stack import Stack
from bench.synthetic import queries, story_interactions

DRAIN_SECONDS = 120
SAMPLED_TURNS = 1000


async def history_off(stack: Stack, story_id: str) -> None:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    body = {"name": "bench", "description": "", "settings": {"history": False}}
    async with (
        aiohttp.ClientSession(stack.url, headers=headers) as http,
        http.put(f"/stories/{story_id}", json=body) as reply,
    ):
        assert reply.status == 200, await reply.text()


async def backlog(stack: Stack) -> float:
    async with aiohttp.ClientSession(stack.url) as http, http.get("/metrics") as reply:
        text = await reply.text()
    line = next(x for x in text.splitlines() if x.startswith("parley_history_backlog "))
    return float(line.split()[1])


def drained(stack: Stack) -> None:
    deadline = time.monotonic() + DRAIN_SECONDS
    while asyncio.run(backlog(stack)) > 0:
        assert time.monotonic() < deadline, "the history backlog did not drain"
        time.sleep(0.5)


def stored_bytes(stack: Stack) -> tuple[int, float, float]:
    """(turns stored, mean BSON bytes of a turn, of a conversation summary)."""
    with MongoClient(stack.config.mongodb_url) as client:
        database = client[stack.config.bot_database]
        count = database["turns"].count_documents({})
        turns = [len(bson.encode(d)) for d in database["turns"].find().limit(SAMPLED_TURNS)]
        summaries = [
            len(bson.encode(d)) for d in database["conversations"].find().limit(SAMPLED_TURNS)
        ]
    return count, statistics.mean(turns or [0]), statistics.mean(summaries or [0])


def history_table(stack: Stack) -> str:
    interactions = story_interactions(150)
    on, _ = asyncio.run(upload(stack, interactions))
    off, _ = asyncio.run(upload(stack, interactions))
    asyncio.run(history_off(stack, off))
    asked = [q.replace('"', "") for q in queries(interactions, 200)]
    token = stack.tokens.public_key
    runs: dict[str, list[dict[str, Any]]] = {"on": [], "off": []}
    with wrk_script(asked, token, on) as script_on, wrk_script(asked, token, off) as script_off:
        scripts = {"on": script_on, "off": script_off}
        wrk(stack.url, script_off)  # warm-up
        for _ in range(ROUNDS):
            for name, script in scripts.items():
                drained(stack)
                runs[name].append(wrk(stack.url, script))
    drained(stack)
    medians = {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for name, results in runs.items()
    }
    ratio = medians["on"]["rps"] / medians["off"]["rps"]
    count, turn_bytes, summary_bytes = stored_bytes(stack)
    lines = [
        f"wrk, {CONNECTIONS} connections, {SECONDS} s, medians of {ROUNDS} rounds run side by side",
        "(one warm-up run first) in one bot-api process: two stories of the 150 × 99 generated",
        "interactions with reworded phrases, `history` on and off; the recorder's backlog drained",
        "before each round. Lexical stage only (SEMANTIC_MATCHING=off), so no turn holds a",
        "sentence vector: with the semantic stage a vector of 384 numbers adds about 5 KB to a",
        "turn that the stage encoded.",
        "",
        "| history | req/s | p50 | p99 | non-2xx |",
        "|---|---|---|---|---|",
    ]
    for name in ("off", "on"):
        m = medians[name]
        lines.append(
            f"| {name} | {m['rps']:.0f} | {m['p50']:.1f} ms | {m['p99']:.1f} ms "
            f"| {m['errors']:.0f} |"
        )
    lines += [
        "",
        f"With the history on, /query reaches **{ratio:.0%}** of its throughput with it off "
        "(goal ≥ 90 %).",
        "",
        f"Stored: {count:,} turns; a turn's document {turn_bytes:.0f} bytes on average (BSON, "
        f"{SAMPLED_TURNS} sampled), a conversation's summary {summary_bytes:.0f} bytes; "
        "indexes not counted.",
    ]
    return "\n".join(lines)
