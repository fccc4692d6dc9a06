"""/query under load beside the baseline, and the cost of an edit.

wrk (Debian) drives 64 connections for 10 s against each service in turn, three rounds
side by side; sessions rotate over 1,000 ids per wrk thread, queries over reworded
phrases of the story.
"""

import asyncio
import contextlib
import dataclasses
import json
import re
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp

from bench import eval_nlu, eval_stories
from bench.stack import Stack, serve
from bench.synthetic import queries, story_interactions
from bench.vectors import random_vectors, store
from tools.embedded import free_port

ROUNDS = 3
CONNECTIONS = 64
SECONDS = 10
EDIT_TRIALS = 7
SEQUENTIAL_QUERIES = 300

WRK_SCRIPT = """
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args) counter = 0; started = os.time() end
queries = %(queries)s
request = function()
  counter = counter + 1
  local body = string.format('{"sessionId":"t%%s-%%d",%(story)s"query":"%%s"}',
    tid, counter %% 1000, queries[counter %% #queries + 1])
  return wrk.format("POST", "/query", {["Content-Type"]="application/json",
    ["Authorization"]="Bearer %(token)s"%(host)s%(key)s}, body)
end
"""
TURN_KEY = ', ["Parley-Turn-Id"]=string.format("k%d-%s-%d", started, tid, counter)'
"""A key of its own for each request, as the gateway sends (bot_api/query/repeats.py):
the run's start in it, since each round sends the same sessions and queries again (a
key of an earlier round would be answered from the session)."""


@contextlib.contextmanager
def wrk_script(
    asked: list[str],
    token: str,
    story_id: str | None = None,
    host: str | None = None,
    keyed: bool = False,
) -> Iterator[Path]:
    """A wrk script sending `asked` to /query in turn with `token` (to `story_id`, else
    the account's default story), naming `host` (a gateway's server) when given, each
    request under a turn key of its own when `keyed`."""
    story = "" if story_id is None else f'"storyId":"{story_id}",'
    named = "" if host is None else f', ["Host"]="{host}"'
    table = json.dumps(asked, ensure_ascii=False).replace("[", "{").replace("]", "}")
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(
            WRK_SCRIPT % {"queries": table, "token": token, "story": story,
                          "host": named, "key": TURN_KEY if keyed else ""}
        )  # fmt: skip
        script.flush()
        yield Path(script.name)


def _milliseconds(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    url: str, script: Path | None, connections: int = CONNECTIONS, seconds: int = SECONDS
) -> dict[str, float]:
    """One wrk run (2 threads) of `script`, or of GETs of `url` without one."""
    scripted = [] if script is None else ["-s", str(script)]
    output = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", *scripted, url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),  # type: ignore[union-attr]
        "p50": _milliseconds(re.search(r"\s50%\s+(\S+)", output).group(1)),  # type: ignore[union-attr]
        "p99": _milliseconds(re.search(r"\s99%\s+(\S+)", output).group(1)),  # type: ignore[union-attr]
        "errors": float(errors.group(1)) if errors else 0.0,
    }


async def upload(stack: Stack, interactions: list[dict[str, Any]]) -> tuple[str, list[str]]:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        return await upload_with(http, interactions)


async def upload_with(
    http: aiohttp.ClientSession, interactions: list[dict[str, Any]]
) -> tuple[str, list[str]]:
    """A new story of these interactions, made with `http` (the developer's client); its
    id and theirs."""
    async with http.post("/stories", json={"name": "bench", "description": ""}) as reply:
        story_id = (await reply.json())["id"]
    ids = []
    for interaction in interactions:
        path = f"/stories/{story_id}/interactions"
        async with http.post(path, json=interaction) as reply:
            ids.append((await reply.json())["id"])
    return story_id, ids


def load_table(stack: Stack) -> str:
    interactions = story_interactions(150)
    asyncio.run(upload(stack, interactions))
    asked = [q.replace('"', "") for q in queries(interactions, 200)]
    baseline_config = dataclasses.replace(stack.config, bot_api_port=free_port())
    baseline = serve(baseline_config, stack.directory, module="bench.baseline")
    try:
        with (
            wrk_script(asked, stack.tokens.public_key) as script,
            wrk_script(asked, stack.tokens.public_key, keyed=True) as keyed,
        ):
            runs: dict[str, list[dict[str, float]]] = {"baseline": [], "query": [], "keyed": []}
            targets = {"baseline": (f"http://127.0.0.1:{baseline_config.bot_api_port}", script),
                       "query": (stack.url, script), "keyed": (stack.url, keyed)}  # fmt: skip
            wrk(stack.url, script)
            order = list(targets)
            for _ in range(ROUNDS):
                for name in order:
                    url, sent = targets[name]
                    runs[name].append(wrk(url, sent))
                order = order[1:] + order[:1]  # each first once: a run slows the next
    finally:
        baseline.stop()
    medians = {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for name, results in runs.items()
    }
    ratio = medians["query"]["rps"] / medians["baseline"]["rps"]
    lines = [
        f"wrk, {CONNECTIONS} connections, {SECONDS} s, medians of {ROUNDS} rounds run side by side",
        "(one warm-up run first; each first in one round); /query on the 150 × 99 generated",
        "story with reworded phrases,",
        "the baseline (bench/baseline.py) doing only the JSON parse, one session read, one",
        "conditional session write (an empty state, TTL index as /query's) and a fixed answer",
        "against the same nx-27017. Lexical stage only (SEMANTIC_MATCHING=off): the semantic",
        "stage's cost is in the edit section below, measured one query at a time. Keyed: each",
        "/query under a `Parley-Turn-Id` of its own, as the gateway sends it, so its answer",
        "is saved with the session (bot_api/query/repeats.py).",
        "",
        "| service | req/s | p50 | p99 | non-2xx |",
        "|---|---|---|---|---|",
    ]
    labels = {"baseline": "baseline handler", "query": "POST /query", "keyed": "POST /query, keyed"}
    for name, label in labels.items():
        m = medians[name]
        lines.append(
            f"| {label} | {m['rps']:.0f} | {m['p50']:.1f} ms | {m['p99']:.1f} ms "
            f"| {m['errors']:.0f} |"
        )
    keyed_ratio = medians["keyed"]["rps"] / medians["query"]["rps"]
    lines += [
        "",
        f"/query reaches **{ratio:.0%}** of the baseline's throughput (goal ≥ 80 %); keyed,",
        f"{keyed_ratio:.0%} of its throughput unkeyed.",
    ]
    return "\n".join(lines)


async def edit_latency(stack: Stack) -> tuple[float, float, float, float]:
    """(cold first query, median edit-to-visible, median PUT, p50 of queries one at a
    time) in ms on a 1,000 × 99 story whose phrase vectors are stored already."""
    interactions = story_interactions(1000)
    story_id, ids = await upload(stack, interactions)
    store(stack, random_vectors(interactions))
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:

        async def ask(text: str) -> dict[str, Any]:
            body = {"sessionId": f"edit-{time.monotonic_ns()}", "storyId": story_id, "query": text}
            async with http.post("/query", json=body) as reply:
                return dict((await reply.json())["result"])

        started = time.perf_counter()
        await ask("warm up")
        cold = time.perf_counter() - started
        one_at_a_time = []
        for text in queries(interactions, SEQUENTIAL_QUERIES):
            started = time.perf_counter()
            await ask(text)
            one_at_a_time.append(time.perf_counter() - started)
        visible, puts = [], []
        for trial in range(EDIT_TRIALS):
            target = ids[trial * 97]
            phrase = f"brand new phrase number {trial} for zorblax"
            started = time.perf_counter()
            path = f"/stories/{story_id}/interactions/{target}"
            async with http.put(path, json={"userSays": [phrase]}) as reply:
                assert reply.status == 200, await reply.text()
            edited = time.perf_counter()
            result = await ask(phrase)
            assert result["interaction"]["id"] == target, result["interaction"]
            visible.append(time.perf_counter() - edited)
            puts.append(edited - started)
    return (
        cold * 1000,
        statistics.median(visible) * 1000,
        statistics.median(puts) * 1000,
        statistics.median(one_at_a_time) * 1000,
    )


async def real_text_latency(stack: Stack) -> tuple[float, float]:
    """(p50, p99) in ms of /query one at a time on the HWU64 story (64 intents, up to 99
    phrases each, as `make eval` builds it) with its test messages: English as users
    write it, what the semantic stage is for."""
    phrases, test = eval_nlu.intents("hwu64_kfold1")
    story_id, _ = await upload(stack, [{"name": i, "userSays": t} for i, t in phrases.items()])
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        if stack.config.semantic_matching:
            await eval_stories.vectors_landed(http, story_id)
    seconds = sorted(await one_at_a_time(stack, story_id, [text for text, _ in test]))
    return seconds[len(seconds) // 2] * 1000, seconds[int(len(seconds) * 0.99)] * 1000


async def one_at_a_time(stack: Stack, story_id: str, asked: list[str]) -> list[float]:
    """The seconds of /query for each of the first `SEQUENTIAL_QUERIES` messages, asked
    one after the other, each on a session of its own."""
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    seconds = []
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        for number, text in enumerate(asked[:SEQUENTIAL_QUERIES]):
            body = {"sessionId": f"one-{number}", "storyId": story_id, "query": text}
            started = time.perf_counter()
            async with http.post("/query", json=body) as reply:
                assert reply.status == 200, await reply.text()
                await reply.read()
            seconds.append(time.perf_counter() - started)
    return seconds


def edit_table(stack: Stack) -> str:
    cold, visible, put, sequential = asyncio.run(edit_latency(stack))
    real_p50, real_p99 = asyncio.run(real_text_latency(stack))
    return "\n".join(
        [
            "1,000 × 99 generated story with the semantic stage, its phrase vectors stored",
            "before the first query (random stand-ins: bench/vectors.py);",
            f"{EDIT_TRIALS} edits of one interaction's phrases; time from the PUT's answer to",
            "the answer of a /query that matches the new phrase.",
            "",
            "| measure | median |",
            "|---|---|",
            f"| PUT /stories/:story/interactions/:id | {put:.0f} ms |",
            "| from that answer to a /query answered with the edit (goal ≤ 200 ms) "
            f"| {visible:.0f} ms |",
            "| first /query after start (the story compiled from the database and answered "
            "lexically while its 99,000 stored vectors are read; goal ≤ 1.5 s) "
            f"| {cold:.0f} ms |",
            f"| /query one at a time, {SEQUENTIAL_QUERIES} reworded phrases, p50 (goal ≤ 10 ms) "
            f"| {sequential:.1f} ms |",
            f"| /query one at a time on the HWU64 story, {SEQUENTIAL_QUERIES} of its test "
            f"messages, p50 (goal ≤ 10 ms) / p99 | {real_p50:.1f} ms / {real_p99:.1f} ms |",
        ]
    )
