"""/query on real text under load at the defaults (the semantic stage on), beside the
lexical stage alone and the baseline handler, side by side in one run.

The HWU64 story as `make eval` builds it (64 intents, up to 99 phrases each, its phrase
vectors landed) asked its 1,076 test messages in turn by wrk with 16 connections. Three
processes on the same nx-27017: bot-api as configured by default, a second bot-api with
SEMANTIC_MATCHING=off, and the baseline handler (bench/baseline.py); each round drives
each in turn.
"""

import asyncio
import dataclasses
import statistics

import aiohttp

from bench import eval_nlu
from bench.query_load import ROUNDS, SECONDS, upload, wrk, wrk_script
from bench.stack import Stack, serve
from tools.embedded import free_port

CONNECTIONS = 16


async def hwu64_story(stack: Stack) -> tuple[str, list[str]]:
    """The story with its vectors landed, and the test messages as wrk sends them."""
    phrases, test = eval_nlu.intents("hwu64_kfold1")
    story_id, _ = await upload(stack, [{"name": i, "userSays": t} for i, t in phrases.items()])
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        await eval_nlu.vectors_landed(http, story_id)
    asked = [text.replace('"', "").replace("\\", "") for text, _ in test]
    return story_id, asked


def semantic_load_table(stack: Stack) -> str:
    assert stack.config.semantic_matching, "the default configuration has the semantic stage"
    story_id, asked = asyncio.run(hwu64_story(stack))
    lexical_config = dataclasses.replace(
        stack.config, bot_api_port=free_port(), semantic_matching=False
    )
    baseline_config = dataclasses.replace(stack.config, bot_api_port=free_port())
    lexical = serve(lexical_config, stack.directory)
    baseline = serve(baseline_config, stack.directory, module="bench.baseline")
    targets = {
        "semantic": stack.url,
        "lexical": f"http://127.0.0.1:{lexical_config.bot_api_port}",
        "baseline": f"http://127.0.0.1:{baseline_config.bot_api_port}",
    }
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in targets}
    try:
        with wrk_script(asked, stack.tokens.public_key, story_id) as script:
            for url in targets.values():
                wrk(url, script, CONNECTIONS)  # warm-up: the story compiled, sessions made
            for _ in range(ROUNDS):
                for name, url in targets.items():
                    runs[name].append(wrk(url, script, CONNECTIONS))
    finally:
        lexical.stop()
        baseline.stop()
    medians = {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for name, results in runs.items()
    }
    ratio = medians["semantic"]["rps"] / medians["lexical"]["rps"]
    labels = {
        "semantic": "POST /query, the default (semantic stage on)",
        "lexical": "POST /query, lexical stage only (SEMANTIC_MATCHING=off)",
        "baseline": "baseline handler",
    }
    lines = [
        f"wrk, {CONNECTIONS} connections, {SECONDS} s, medians of {ROUNDS} rounds run side by side",
        "(one warm-up run of each first): the HWU64 story of `make eval` (64 intents, its phrase",
        "vectors landed) asked its 1,076 test messages in turn; three processes on one nx-27017.",
        "",
        "| service | req/s | p50 | p99 | non-2xx |",
        "|---|---|---|---|---|",
    ]
    for name, label in labels.items():
        m = medians[name]
        lines.append(
            f"| {label} | {m['rps']:.0f} | {m['p50']:.1f} ms | {m['p99']:.1f} ms "
            f"| {m['errors']:.0f} |"
        )
    lines += [
        "",
        f"With the semantic stage, /query keeps **{ratio:.0%}** of the lexical stage's "
        "throughput (goal ≥ 60 %).",
    ]
    return "\n".join(lines)
