"""/query with the history on and off, side by side in one run, and the bytes a turn
takes in MongoDB (docs/history.md): once with the lexical stage only, once at the
defaults (the semantic stage on, so a turn keeps the message's sentence vector).

Each pair is two stories of the same generated interactions in one bot-api process, one
with `history` on (the default), one off; wrk drives each in turn for three rounds, and
before each round the recorder's backlog is let drain (`parley_history_backlog` 0), so
no round pays for another's writes.
"""

import asyncio
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import bson
from pymongo import MongoClient

from bench import eval_stories
from bench.query_load import CONNECTIONS, SECONDS, upload, wrk, wrk_script
from bench.stack import Stack, running_stack
from bench.synthetic import queries, story_interactions
from bench.vectors import random_vectors, store

DRAIN_SECONDS = 120
SAMPLED_TURNS = 1000
SETTLE_SECONDS = 1.0
"""After the backlog reads 0, the last batch (taken off the queue) and its counters are
still being written: about 0.2 s for 500 turns."""
LEXICAL_INTERACTIONS = 150
SEMANTIC_INTERACTIONS = 20
"""20 × 99 phrases: their stand-in vectors (bench/vectors.py) are stored in a second, and
with the semantic stage encoding most queries the story's size matters little."""


PAIRED_ROUNDS = 5
"""Rounds of on then off: each round's ratio compares two runs 10 s apart, so the
machine's load (shared, and moving by more than the history costs) mostly cancels; the
median of the rounds' ratios is reported."""


@dataclass(frozen=True)
class Pair:
    medians: dict[str, dict[str, float]]
    ratios: list[float]
    """Each round's requests/s with the history on over off."""
    cpu_ratios: list[float]
    turns: int
    turn_bytes: float
    """Mean BSON bytes of a stored turn."""
    vector_turns: int
    """Turns stored with a sentence vector."""
    summary_bytes: float

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def cpu_ratio(self) -> float:
        """The throughput the history leaves where CPU is what bounds it: the CPU a /query
        takes with it off over with it on."""
        return statistics.median(self.cpu_ratios)


async def history_off(stack: Stack, story_id: str) -> None:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    body = {"name": "bench", "description": "", "settings": {"history": False}}
    async with (
        aiohttp.ClientSession(stack.url, headers=headers) as http,
        http.put(f"/stories/{story_id}", json=body) as reply,
    ):
        assert reply.status == 200, await reply.text()


async def semantic_ready(stack: Stack, story_ids: list[str]) -> None:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        for story_id in story_ids:
            await eval_stories.vectors_landed(http, story_id)


async def backlog(stack: Stack) -> float:
    async with aiohttp.ClientSession(stack.url) as http, http.get("/metrics") as reply:
        text = await reply.text()
    line = next(x for x in text.splitlines() if x.startswith("parley_history_backlog "))
    return float(line.split()[1])


def database_pid(stack: Stack) -> int:
    return int(next(stack.directory.glob("nx-27017-*.pid")).read_text())


def cpu_seconds(pids: tuple[int, ...]) -> float:
    """CPU time the processes have used (user and system, from /proc)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def drained(stack: Stack) -> None:
    deadline = time.monotonic() + DRAIN_SECONDS
    while asyncio.run(backlog(stack)) > 0:
        assert time.monotonic() < deadline, "the history backlog did not drain"
        time.sleep(0.5)


def measured_pair(stack: Stack, interactions: list[dict[str, Any]]) -> Pair:
    if stack.config.semantic_matching:
        store(stack, random_vectors(interactions))
    on, _ = asyncio.run(upload(stack, interactions))
    off, _ = asyncio.run(upload(stack, interactions))
    asyncio.run(history_off(stack, off))
    if stack.config.semantic_matching:
        asyncio.run(semantic_ready(stack, [on, off]))
    asked = [q.replace('"', "") for q in queries(interactions, 200)]
    token = stack.tokens.public_key
    runs: dict[str, list[dict[str, Any]]] = {"on": [], "off": []}
    processes = (stack.bot_api.process.pid, database_pid(stack))
    with wrk_script(asked, token, on) as script_on, wrk_script(asked, token, off) as script_off:
        scripts = {"on": script_on, "off": script_off}
        wrk(stack.url, script_off)  # warm-up
        drained(stack)
        for _ in range(PAIRED_ROUNDS):
            for name, script in scripts.items():
                before = cpu_seconds(processes)
                run = wrk(stack.url, script)
                drained(stack)
                time.sleep(SETTLE_SECONDS)
                used = cpu_seconds(processes) - before
                runs[name].append({**run, "cpu": used / (run["rps"] * SECONDS) * 1000})
    medians = {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for name, results in runs.items()
    }
    rounds = list(zip(runs["on"], runs["off"], strict=True))
    with MongoClient(stack.config.mongodb_url) as client:
        database = client[stack.config.bot_database]
        turns = database["turns"]
        sampled = [len(bson.encode(d)) for d in turns.find().limit(SAMPLED_TURNS)]
        summaries = [
            len(bson.encode(d)) for d in database["conversations"].find().limit(SAMPLED_TURNS)
        ]
        return Pair(
            medians=medians,
            ratios=[on["rps"] / off["rps"] for on, off in rounds],
            cpu_ratios=[off["cpu"] / on["cpu"] for on, off in rounds],
            turns=turns.count_documents({}),
            turn_bytes=statistics.mean(sampled or [0]),
            vector_turns=turns.count_documents({"vector": {"$ne": None}}),
            summary_bytes=statistics.mean(summaries or [0]),
        )


def history_table() -> str:
    """Both pairs, each in a stack of its own."""
    with running_stack("history", semantic_matching=False) as stack:
        lexical = measured_pair(stack, story_interactions(LEXICAL_INTERACTIONS))
    with running_stack("history-semantic", semantic_matching=True) as stack:
        semantic = measured_pair(stack, story_interactions(SEMANTIC_INTERACTIONS))
    lines = [
        f"wrk, {CONNECTIONS} connections, {SECONDS} s, {PAIRED_ROUNDS} rounds of history on then",
        "off (one warm-up run first; medians in the table) in one bot-api process: two stories",
        "of the same generated interactions with reworded phrases, `history` on and off; the",
        "recorder's backlog drained before each round. Two pairs, each in a stack of its own:",
        "the lexical stage only",
        f"(SEMANTIC_MATCHING=off, {LEXICAL_INTERACTIONS} × 99 interactions), and the defaults",
        f"(the semantic stage on, {SEMANTIC_INTERACTIONS} × 99 interactions with stand-in phrase",
        "vectors: bench/vectors.py), where a turn the stage encoded keeps its 768-byte vector.",
        "",
        "The CPU column is what bot-api and nx-27017 used together per /query, from the round's",
        "start until its turns were written (/proc). bot-api, the database and wrk share the",
        "machine's two cores with whatever else runs there: both req/s and CPU move with that",
        "load, by more between runs than the history costs, so compare on with off of one run.",
        "",
        "| stages | history | req/s | p50 | p99 | non-2xx | CPU per /query |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, pair in (("lexical", lexical), ("semantic (defaults)", semantic)):
        for name in ("off", "on"):
            m = pair.medians[name]
            lines.append(
                f"| {label} | {name} | {m['rps']:.0f} | {m['p50']:.1f} ms | {m['p99']:.1f} ms "
                f"| {m['errors']:.0f} | {m['cpu']:.2f} ms |"
            )
    lines += [
        "",
        "With the history on, /query reaches this share of its throughput with it off (goal",
        "≥ 90 %): the median of the rounds' ratios, each round's in brackets.",
        "",
        f"- lexical stage only: **{lexical.ratio:.0%}** ({_percents(lexical.ratios)}); by the CPU "
        f"a /query takes, {lexical.cpu_ratio:.0%} ({_percents(lexical.cpu_ratios)})",
        f"- the defaults: **{semantic.ratio:.0%}** ({_percents(semantic.ratios)}); by the CPU "
        f"a /query takes, {semantic.cpu_ratio:.0%} ({_percents(semantic.cpu_ratios)})",
        "",
        "| stages | turns stored | with a vector | bytes a turn | bytes a summary |",
        "|---|---|---|---|---|",
    ]
    for label, pair in (("lexical", lexical), ("semantic (defaults)", semantic)):
        lines.append(
            f"| {label} | {pair.turns:,} | {pair.vector_turns:,} | {pair.turn_bytes:.0f} "
            f"| {pair.summary_bytes:.0f} |"
        )
    lines += [
        "",
        f"Bytes: BSON, the mean of {SAMPLED_TURNS} sampled documents; indexes not counted. A "
        "conversation's summary is the one document per conversation the listing reads.",
    ]
    return "\n".join(lines)


def _percents(ratios: list[float]) -> str:
    return ", ".join(f"{r:.0%}" for r in ratios)
