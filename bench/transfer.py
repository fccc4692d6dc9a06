"""A story as a file (docs/import-export.md): the export of the generated 1000 × 99 story
(JSON and YAML), its import as one document, and the import of a 150-intent Dialogflow ES
agent through the API, each the median of ROUNDS, at the defaults (the semantic stage on)
and with it off. `python -m bench.transfer`; make bench writes its section."""

import asyncio
import io
import json
import statistics
import time
import uuid
import zipfile
from typing import Any

import aiohttp

from bench.report import write_section
from bench.stack import Stack, running_stack
from bench.synthetic import story_interactions

ROUNDS = 5
BIG_STORY = 1000
AGENT_INTENTS = 150
AGENT_PHRASES = 20
"""A real agent's intents hold a few to a few dozen training phrases."""


def generated_document(count: int, phrases: int) -> dict[str, Any]:
    """The generated story as a Parley document: `count` interactions of `phrases`."""
    interactions = [
        {
            "key": f"topic-{number}",
            "name": interaction["name"],
            "userSays": interaction["userSays"],
            "responses": [{"type": "text", "messages": [f"About {interaction['name']}."]}],
        }
        for number, interaction in enumerate(story_interactions(count, phrases=phrases))
    ]
    return {"format": "parley.story", "version": 1, "name": "bench", "interactions": interactions}


def dialogflow_agent(intents: int, phrases: int) -> bytes:
    """A Dialogflow ES agent export of `intents` generated intents, as Dialogflow zips it."""
    files: dict[str, Any] = {
        "agent.json": {"language": "en", "description": "bench", "supportedLanguages": []},
        "package.json": {"version": "1.0.0"},
    }
    for interaction in story_interactions(intents, phrases=phrases):
        name = interaction["name"]
        files[f"intents/{name}.json"] = {
            "id": str(uuid.uuid4()),
            "name": name,
            "contexts": [],
            "responses": [
                {
                    "action": name.lower(),
                    "affectedContexts": [],
                    "parameters": [],
                    "messages": [{"type": 0, "lang": "en", "speech": [f"About {name}."]}],
                }
            ],
            "webhookUsed": False,
            "fallbackIntent": False,
            "events": [],
        }
        files[f"intents/{name}_usersays_en.json"] = [
            {"id": str(uuid.uuid4()), "data": [{"text": text}], "isTemplate": False, "count": 0}
            for text in interaction["userSays"]
        ]
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path, content in files.items():
            zipped.writestr(path, json.dumps(content, indent=2))
    return archive.getvalue()


async def timed_import(http: aiohttp.ClientSession, body: bytes, media: str) -> tuple[float, str]:
    started = time.perf_counter()
    async with http.post("/stories/import", data=body, headers={"Content-Type": media}) as reply:
        answer = await reply.json()
        assert reply.status == 200, answer
    return time.perf_counter() - started, str(answer["id"])


async def timed_export(http: aiohttp.ClientSession, story_id: str, form: str) -> tuple[float, int]:
    started = time.perf_counter()
    async with http.get(f"/stories/{story_id}/export?format={form}") as reply:
        body = await reply.read()
        assert reply.status == 200, body[:200]
    return time.perf_counter() - started, len(body)


HOSTILE = {
    "refuse 50,000 nested YAML lists": b"[" * 50_000 + b"]" * 50_000,
    "refuse a YAML list of a million items (2 MB)": b"[" + b",".join([b"1"] * 1_000_000) + b"]",
}
"""The campaign's imports: the first killed bot-api (SIGSEGV), the second held the
transfer worker for 23 minutes; each is now a 400 (transfer/shape.py)."""


async def timed_refusal(http: aiohttp.ClientSession, body: bytes) -> float:
    started = time.perf_counter()
    headers = {"Content-Type": "application/yaml"}
    async with http.post("/stories/import", data=io.BytesIO(body), headers=headers) as reply:
        await reply.read()
        assert reply.status == 400, reply.status
    return time.perf_counter() - started


async def measure(stack: Stack) -> dict[str, tuple[float, float]]:
    """Median and largest seconds of each operation, and the document sizes."""
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    document = json.dumps(generated_document(BIG_STORY - 2, phrases=99)).encode()
    agent = dialogflow_agent(AGENT_INTENTS, AGENT_PHRASES)
    timings: dict[str, list[float]] = {}
    sizes: dict[str, int] = {"document": len(document), "agent": len(agent)}
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(stack.url, headers=headers, timeout=timeout) as http:
        took, story_id = await timed_import(http, document, "application/json")
        timings["import the 1000 × 99 document"] = [took]
        for _ in range(ROUNDS):
            for form in ("json", "yaml"):
                took, size = await timed_export(http, story_id, form)
                timings.setdefault(f"export 1000 × 99 ({form})", []).append(took)
                sizes[form] = size
            took, _ = await timed_import(http, agent, "application/zip")
            timings.setdefault(f"import a {AGENT_INTENTS}-intent Dialogflow agent", []).append(took)
            for name, body in HOSTILE.items():
                timings.setdefault(name, []).append(await timed_refusal(http, body))
    print(sizes)
    return {name: (statistics.median(s), max(s)) for name, s in timings.items()}


def table() -> str:
    runs = {}
    for semantic in (True, False):
        with running_stack("transfer", semantic_matching=semantic) as stack:
            runs[semantic] = asyncio.run(measure(stack))
    rows = [
        "| operation | semantic stage on (default): median (max) | off: median (max) |",
        "|---|---|---|",
    ]
    for name in runs[True]:
        on, off = runs[True][name], runs[False][name]
        rows.append(f"| {name} | {on[0]:.2f} s ({on[1]:.2f}) | {off[0]:.2f} s ({off[1]:.2f}) |")
    return "\n".join(
        [
            f"{ROUNDS} rounds (the 1000 × 99 import once), through the API of a bot-api process "
            f"on the embedded database. The agent: {AGENT_INTENTS} intents of {AGENT_PHRASES} "
            "training phrases. Goals: the agent under 10 s, the export under 2 s.",
            "",
            *rows,
        ]
    )


def main() -> None:
    write_section("transfer", "A story as a file (make bench)", table())


if __name__ == "__main__":
    main()
