"""/query on real text under load, the run issue 30 set its goals in: lexical /query
with the history on ≥ 900 req/s, the semantic stage ≥ 60 % of that, beside /healthz.

The HWU64 story as `make eval` builds it (64 intents, up to 99 phrases each, its phrase
vectors landed, its history on as by default) asked its 1,076 test messages in turn by
wrk (2 threads, 16 connections, 15 s; rate limits off). Three processes on the same
nx-27017: bot-api as configured by default (the semantic stage on), a second bot-api
with SEMANTIC_MATCHING=off, and the baseline handler (bench/baseline.py: the JSON
parse, one session read and one write, the least any /query does); each round drives
each in turn, and /healthz of the lexical process, so the machine's load of the moment
shows. Beside req/s, the CPU bot-api used per request (/proc), which moves less with
what else runs on the shared machine, and an engine turn's CPU in-process.
"""

import asyncio
import dataclasses
import os
import statistics
import time

import aiohttp

from bench import eval_nlu, eval_stories
from bench.history_load import cpu_seconds
from bench.matching import build
from bench.query_load import ROUNDS, upload, wrk, wrk_script
from bench.stack import Stack, serve
from bot_api.engine.conversation import respond
from bot_api.engine.turn import SessionState, Turn
from tools.embedded import free_port

CONNECTIONS = 16
SECONDS = 15
LEXICAL_GOAL = 900


async def hwu64_story(stack: Stack) -> tuple[str, list[str]]:
    """The story with its vectors landed, and the test messages as wrk sends them."""
    phrases, test = eval_nlu.intents("hwu64_kfold1")
    story_id, _ = await upload(stack, [{"name": i, "userSays": t} for i, t in phrases.items()])
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        await eval_stories.vectors_landed(http, story_id)
    asked = [text.replace('"', "").replace("\\", "") for text, _ in test]
    return story_id, asked


def engine_turn_microseconds() -> float:
    """CPU of one lexical engine turn on the HWU64 story, in-process: the median of
    three passes over its test messages, each on a fresh session."""
    phrases, test = eval_nlu.intents("hwu64_kfold1")
    story = build([{"name": i, "userSays": t} for i, t in phrases.items()])
    passes = []
    for _ in range(ROUNDS + 1):
        started = time.process_time()
        for text, _ in test:
            respond(story, SessionState(), Turn(query=text), lambda options: options[0])
        passes.append((time.process_time() - started) / len(test) * 1e6)
    return statistics.median(passes[1:])


def semantic_load_table(stack: Stack) -> str:
    assert stack.config.semantic_matching, "the default configuration has the semantic stage"
    story_id, asked = asyncio.run(hwu64_story(stack))
    lexical_config = dataclasses.replace(
        stack.config, bot_api_port=free_port(), semantic_matching=False
    )
    baseline_config = dataclasses.replace(stack.config, bot_api_port=free_port())
    lexical = serve(lexical_config, stack.directory)
    baseline = serve(baseline_config, stack.directory, module="bench.baseline")
    lexical_url = f"http://127.0.0.1:{lexical_config.bot_api_port}"
    targets = {
        "healthz": (f"{lexical_url}/healthz", lexical),
        "semantic": (stack.url, stack.bot_api),
        "lexical": (lexical_url, lexical),
        "baseline": (f"http://127.0.0.1:{baseline_config.bot_api_port}", baseline),
    }
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in targets}
    loads = []
    try:
        with wrk_script(asked, stack.tokens.public_key, story_id) as script:
            for name, (url, _) in targets.items():
                warm_up = None if name == "healthz" else script
                wrk(url, warm_up, CONNECTIONS, SECONDS)  # the story compiled, sessions made
            for _ in range(ROUNDS):
                loads.append(os.getloadavg()[0])
                for name, (url, server) in targets.items():
                    before = cpu_seconds((server.process.pid,))
                    run = wrk(url, None if name == "healthz" else script, CONNECTIONS, SECONDS)
                    used = cpu_seconds((server.process.pid,)) - before
                    runs[name].append({**run, "cpu": used / (run["rps"] * SECONDS) * 1000})
    finally:
        lexical.stop()
        baseline.stop()
    medians = {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for name, results in runs.items()
    }
    ratio = medians["semantic"]["rps"] / medians["lexical"]["rps"]
    labels = {
        "healthz": "GET /healthz (of the lexical process)",
        "lexical": "POST /query, lexical stage only (SEMANTIC_MATCHING=off)",
        "semantic": "POST /query, the default (semantic stage on)",
        "baseline": "baseline handler",
    }
    lines = [
        f"wrk, 2 threads, {CONNECTIONS} connections, {SECONDS} s, medians of {ROUNDS} rounds run",
        "side by side (one warm-up run of each first): the HWU64 story of `make eval` (64",
        "intents, its phrase vectors landed, history on) asked its 1,076 test messages in turn;",
        "three processes on one nx-27017, rate limits off. CPU: what the serving process used",
        "per request (/proc). Load average (1 min) at each round's start: "
        + ", ".join(f"{load:.1f}" for load in loads)
        + ".",
        "",
        "| service | req/s | p50 | p99 | non-2xx | CPU per request |",
        "|---|---|---|---|---|---|",
    ]
    for name in ("healthz", "lexical", "semantic", "baseline"):
        m = medians[name]
        lines.append(
            f"| {labels[name]} | {m['rps']:.0f} | {m['p50']:.1f} ms | {m['p99']:.1f} ms "
            f"| {m['errors']:.0f} | {m['cpu']:.2f} ms |"
        )
    lines += [
        "",
        f"Lexical /query: **{medians['lexical']['rps']:.0f} req/s** (goal ≥ {LEXICAL_GOAL}); "
        f"with the semantic stage, /query keeps **{ratio:.0%}** of it (goal ≥ 60 %). An engine "
        f"turn alone (lexical, in-process): {engine_turn_microseconds():.0f} µs of CPU.",
    ]
    return "\n".join(lines)
