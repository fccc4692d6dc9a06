"""/query on a story of three languages beside the same story in one (issue 32).

The English xSID story (15 intents, its `valid` phrases) as it is, and with each
intent's German and Japanese phrases and answers. wrk drives 64 connections for 10 s at
each in turn, three rounds side by side: the one-language story is asked English test
messages, the three-language one a mix of English, German and Japanese ones (each
turn's language detected). Then each story one message at a time. The default
configuration: the semantic stage on (MiniLM reads the English story, USE the other).
"""

import asyncio
import contextlib
import statistics
from typing import Any

import aiohttp

from bench.eval_languages import xsid
from bench.eval_stories import vectors_landed
from bench.query_load import (
    CONNECTIONS,
    ROUNDS,
    SECONDS,
    SEQUENTIAL_QUERIES,
    one_at_a_time,
    wrk,
    wrk_script,
)
from bench.stack import Stack

FURTHER = ("de", "ja")


async def _upload(stack: Stack, languages: tuple[str, ...]) -> str:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    by_intent, _ = xsid("en")
    variants = {code: xsid(code)[0] for code in languages}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        story = {"name": "languages", "description": "", "settings": {"languages": languages}}
        async with http.post("/stories", json=story) as reply:
            assert reply.status == 200, await reply.text()
            story_id: str = (await reply.json())["id"]
        for intent, phrases in by_intent.items():
            body: dict[str, Any] = {
                "name": intent,
                "userSays": phrases,
                "responses": [{"type": "text", "messages": [intent]}],
            }
            translations = {
                code: {
                    "userSays": variant[intent],
                    "responses": [{"type": "text", "messages": [f"{intent} ({code})"]}],
                }
                for code, variant in variants.items()
                if intent in variant
            }
            if translations:
                body["translations"] = translations
            async with http.post(f"/stories/{story_id}/interactions", json=body) as reply:
                assert reply.status == 200, await reply.text()
        if stack.config.semantic_matching:
            await vectors_landed(http, story_id)
    return story_id


def _asked(languages: tuple[str, ...]) -> list[str]:
    """Test messages of English and each further language, interleaved."""
    splits = [[t.replace('"', "") for t, _ in xsid(c)[1]] for c in ("en", *languages)]
    return [text for row in zip(*splits, strict=False) for text in row]


def languages_table(stack: Stack) -> str:
    stories = {
        "one language (en)": (asyncio.run(_upload(stack, ())), _asked(())),
        "three languages (en, de, ja)": (asyncio.run(_upload(stack, FURTHER)), _asked(FURTHER)),
    }
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in stories}
    with contextlib.ExitStack() as scripts_open:
        scripts = {
            name: scripts_open.enter_context(wrk_script(asked, stack.tokens.public_key, story_id))
            for name, (story_id, asked) in stories.items()
        }
        for script in scripts.values():
            wrk(stack.url, script)
        for _ in range(ROUNDS):
            for name, script in scripts.items():
                runs[name].append(wrk(stack.url, script))
    sequential = {
        name: statistics.median(asyncio.run(one_at_a_time(stack, story_id, asked))) * 1000
        for name, (story_id, asked) in stories.items()
    }
    medians = {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for name, results in runs.items()
    }
    one, three = (medians[name]["rps"] for name in stories)
    lines = [
        f"wrk, {CONNECTIONS} connections, {SECONDS} s, medians of {ROUNDS} rounds run side by",
        "side (one warm-up run each first), then one message at a time",
        f"({SEQUENTIAL_QUERIES} messages); the semantic stage on.",
        "",
        "| story | req/s | p50 | p99 | non-2xx | one at a time, p50 |",
        "|---|---|---|---|---|---|",
    ]
    for name in stories:
        m = medians[name]
        lines.append(
            f"| {name} | {m['rps']:.0f} | {m['p50']:.1f} ms | {m['p99']:.1f} ms "
            f"| {m['errors']:.0f} | {sequential[name]:.1f} ms |"
        )
    lines += [
        "",
        f"Three languages reach **{three / one:.0%}** of one language's throughput (goal ≥ 90 %;"
        " one at a time, p50 ≤ 10 ms).",
    ]
    return "\n".join(lines)
