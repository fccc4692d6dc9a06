"""Knowledge answers on the running service (docs/knowledge.md), at the defaults (the
semantic stage on):

- a 50-page PDF (the shared 13-page handbook's pages four times over, 52 pages) uploaded,
  then asked until a knowledge answer comes (lexical), and until its passages' meaning
  has landed (`vectorsPending` 0); three uploads, the median;
- /query throughput on the HWU64 story (64 intents, as `make eval` builds it) asked its
  1,076 test messages by wrk, beside the same story with 1,000 passages of XQuAD's English
  articles: the messages no interaction answers are asked of the documents. Both stories
  in one process, in turns, `ROUNDS` rounds; the goal is ≥ 80 % of the story without
  documents.
"""

import asyncio
import io
import json
import statistics
import time
from typing import Any

import aiohttp
import pypdfium2  # type: ignore[import-untyped]

from bench import eval_nlu, eval_stories
from bench.query_load import ROUNDS, upload, wrk, wrk_script
from bench.stack import Stack
from support.knowledge_data import HANDBOOK_BYTES, KNOWLEDGE_DATA

CONNECTIONS = 16
SECONDS = 15
PASSAGES = 1000
THROUGHPUT_GOAL = 0.8
QUESTION = "how do I log in to the labelling tool"


def fifty_pages() -> bytes:
    """The handbook's 13 pages four times over: 52 pages of real text and pictures."""
    source = pypdfium2.PdfDocument(HANDBOOK_BYTES)
    document = pypdfium2.PdfDocument.new()
    for _ in range(4):
        document.import_pages(source)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


async def pdf_times(stack: Stack) -> tuple[float, float | None, int]:
    """(seconds to a lexical answer, seconds to every passage's meaning or None, pages)."""
    pdf = fifty_pages()
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        async with http.post("/stories", json={"name": "pdf", "description": ""}) as reply:
            story_id = (await reply.json())["id"]
        started = time.perf_counter()
        async with http.post(
            f"/stories/{story_id}/knowledge?title=Handbook",
            data=pdf,
            headers={"Content-Type": "application/pdf"},
        ) as reply:
            document_id = (await reply.json())["id"]
        body = {"sessionId": "pdf", "storyId": story_id, "query": QUESTION}
        while True:
            async with http.post("/query", json=body) as reply:
                if "knowledge" in (await reply.json())["result"]:
                    break
        lexical = time.perf_counter() - started
        meaning = None
        while time.perf_counter() - started < 120:
            async with http.get(f"/stories/{story_id}/knowledge/{document_id}") as reply:
                if (await reply.json())["vectorsPending"] == 0:
                    meaning = time.perf_counter() - started
                    break
            await asyncio.sleep(0.2)
    return lexical, meaning, len(pypdfium2.PdfDocument(pdf))


async def with_documents(stack: Stack, story_id: str) -> int:
    """XQuAD's English articles uploaded to the story until it has `PASSAGES` passages."""
    articles = json.loads((KNOWLEDGE_DATA / "xquad" / "xquad.en.json").read_text())["data"]
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    held = 0
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        for round_number in range(10):
            for article in articles:
                text = "\n\n".join(p["context"] for p in article["paragraphs"])
                body = {"title": f"{article['title']} {round_number}", "text": text}
                async with http.post(f"/stories/{story_id}/knowledge", json=body) as reply:
                    document = await reply.json()
                async with http.get(f"/stories/{story_id}/knowledge/{document['id']}") as reply:
                    held += (await reply.json())["passages"]
                if held >= PASSAGES:
                    return held
    return held


async def landed(stack: Stack, *story_ids: str) -> None:
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        for story_id in story_ids:
            await eval_stories.vectors_landed(http, story_id)


def throughput(stack: Stack) -> dict[str, Any]:
    phrases, test = eval_nlu.intents("hwu64_kfold1")
    interactions = [{"name": i, "userSays": t} for i, t in phrases.items()]
    plain, _ = asyncio.run(upload(stack, interactions))
    documented, _ = asyncio.run(upload(stack, interactions))
    passages = asyncio.run(with_documents(stack, documented))
    asyncio.run(landed(stack, plain, documented))
    asked = [text.replace('"', "").replace("\\", "") for text, _ in test]
    runs: dict[str, list[float]] = {"plain": [], "documented": []}
    with (
        wrk_script(asked, stack.tokens.public_key, plain) as plain_script,
        wrk_script(asked, stack.tokens.public_key, documented) as documented_script,
    ):
        scripts = {"plain": plain_script, "documented": documented_script}
        for script in scripts.values():
            wrk(stack.url, script, CONNECTIONS, SECONDS)
        for _ in range(ROUNDS):
            for name, script in scripts.items():
                runs[name].append(wrk(stack.url, script, CONNECTIONS, SECONDS)["rps"])
    medians = {name: statistics.median(values) for name, values in runs.items()}
    return {"passages": passages, "runs": runs, "medians": medians}


def knowledge_table(stack: Stack) -> str:
    timings = [asyncio.run(pdf_times(stack)) for _ in range(3)]
    lexical = statistics.median(t[0] for t in timings)
    meanings = [t[1] for t in timings if t[1] is not None]
    load = throughput(stack)
    ratio = load["medians"]["documented"] / load["medians"]["plain"]
    meaning = f"{statistics.median(meanings):.1f} s" if len(meanings) == 3 else "not landed"
    return "\n".join(
        [
            "| figure | value | goal |",
            "|---|---|---|",
            f"| {timings[0][2]}-page PDF: upload to a lexical answer (median of 3) "
            f"| {lexical:.2f} s | ≤ 2 s |",
            f"| the same: upload to every passage's meaning | {meaning} | ≤ 60 s |",
            f"| /query, HWU64 story, no documents (median of {ROUNDS}) "
            f"| {load['medians']['plain']:.0f} req/s | |",
            f"| /query, the same story with {load['passages']} passages "
            f"| {load['medians']['documented']:.0f} req/s | |",
            f"| ratio | {ratio:.0%} | ≥ {THROUGHPUT_GOAL:.0%} |",
            "",
            f"Rounds (req/s): no documents {load['runs']['plain']}, with documents "
            f"{load['runs']['documented']}; wrk {CONNECTIONS} connections, {SECONDS} s.",
        ]
    )


def main() -> None:
    from bench.report import write_section
    from bench.stack import running_stack

    with running_stack("knowledge") as stack:
        body = knowledge_table(stack)
    print(body)
    write_section("knowledge", "Knowledge answers on the service (make bench)", body)


if __name__ == "__main__":
    main()
