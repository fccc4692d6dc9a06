"""What holds across three bot-api replicas, measured (docs/scaling.md "What holds across
replicas, tested"; the CI tests are tests/integration/replicas/):

- an edit through replica A, until B and C answer it: EDITS edits, each timed from its
  answer to the first /query of each replica answering the new text (goal: 1 s at p99);
- an account's /query limit with requests spread over the three: accepted against what
  one replica with the whole limit accepts in the same time, the burst plus the rate
  times the seconds taken (goal: within 10 %);
- the phrase vectors of an edit of PHRASES phrases on A, with B and C compiling it as
  soon as they hear of it, before A stored them: how many each replica encoded (goal: 1
  a phrase, B and C awaiting A's vectors, story_cache/queues.py).

`python -m bench.replicas` prints the section; make bench writes it."""

import asyncio
import contextlib
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp

from bench.report import write_section
from bench.stack import Replicas, create_account, running_replicas
from bot_api.encoding.minilm import MODEL_ID
from bot_api.engine.semantic import phrase_text, vector_key
from shared import mongo
from tests.support.metrics import sample
from tests.support.waiting import eventually
from tools.embedded import start_mongo, start_nats

EDITS = 100
GOAL_SECONDS = 1.0
RATE, BURST = 20.0, 40
"""The account's /query limit in the rate measure: each replica takes a third."""
LOAD_SECONDS = 5.0
SENDERS = 6
"""Concurrent senders, spread over the replicas: well past the rate."""
PHRASES = 64
ROUNDS = 3
SETTLE_SECONDS = 60.0
TITLE = "What holds across three replicas (make bench)"


@contextlib.contextmanager
def replicas_on_servers(**settings: Any) -> Iterator[Replicas]:
    """nx-27017 and nats-server of their own, and three replicas on them."""
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as temporary:
        directory = Path(temporary)
        database = start_mongo(directory / "mongo", directory)
        nats = start_nats(directory / "nats", directory)
        try:
            with running_replicas(database.url, nats.url, directory, **settings) as replicas:
                yield replicas
        finally:
            nats.stop()
            database.stop()


@contextlib.asynccontextmanager
async def clients(
    replicas: Replicas, **limits: float
) -> AsyncIterator[list[aiohttp.ClientSession]]:
    """A new account's developer token at each replica (A, B, C)."""
    tokens = await create_account(replicas.config, f"a{uuid.uuid4().hex[:12]}", dict(limits))
    headers = {"Authorization": f"Bearer {tokens.developer_token}"}
    sessions = [aiohttp.ClientSession(url, headers=headers) for url in replicas.urls]
    try:
        yield sessions
    finally:
        for session in sessions:
            await session.close()


async def ok(session: aiohttp.ClientSession, method: str, path: str, body: Any = None) -> Any:
    async with session.request(method, path, json=body) as reply:
        assert reply.status == 200, (reply.status, await reply.text())
        return await reply.json()


async def asked(session: aiohttp.ClientSession, story_id: str, query: str) -> dict[str, Any]:
    body = {"storyId": story_id, "sessionId": uuid.uuid4().hex, "query": query}
    return dict((await ok(session, "POST", "/query", body))["result"])


async def edit_seconds(replicas: Replicas) -> list[float]:
    """Per edit and replica (B, then C), the seconds until it answered the edit."""
    async with clients(replicas) as (a, *others):
        story_id = (await ok(a, "POST", "/stories", {"name": "Shop", "description": ""}))["id"]
        body = {"name": "Hours", "userSays": ["when are you open"], "responses": []}
        hours = (await ok(a, "POST", f"/stories/{story_id}/interactions", body))["id"]
        for replica in others:
            await asked(replica, story_id, "when are you open")
        seconds = []
        for edit in range(EDITS):
            text = f"answer {edit}"
            change = {"responses": [{"type": "text", "messages": [text]}]}
            await ok(a, "PUT", f"/stories/{story_id}/interactions/{hours}", change)
            edited = time.perf_counter()
            seen = [answering(replica, story_id, text) for replica in others]
            seconds += [at - edited for at in await asyncio.gather(*seen)]
        return seconds


async def answering(replica: aiohttp.ClientSession, story_id: str, text: str) -> float:
    """The time (perf_counter) the replica first answers with `text`."""
    while True:
        result = await asked(replica, story_id, "when are you open")
        if [item["message"] for item in result["fulfillment"]] == [text]:
            return time.perf_counter()


async def accepted_over_replicas(replicas: Replicas) -> tuple[int, int, float]:
    """Requests accepted and sent with the account's limit spread over the replicas, and
    the seconds they took."""
    limits = {"query_rate": RATE, "query_burst": BURST}
    async with clients(replicas, **limits) as sessions:
        story = await ok(sessions[0], "POST", "/stories", {"name": "S", "description": ""})
        body = {"storyId": story["id"], "sessionId": "s", "trigger": "welcome"}
        statuses: list[int] = []
        started = time.perf_counter()

        async def send(session: aiohttp.ClientSession) -> None:
            while time.perf_counter() - started < LOAD_SECONDS:
                async with session.post("/query", json=body) as reply:
                    statuses.append(reply.status)

        await asyncio.gather(*(send(sessions[n % len(sessions)]) for n in range(SENDERS)))
        elapsed = time.perf_counter() - started
    assert set(statuses) <= {200, 429}, set(statuses)
    return statuses.count(200), len(statuses), elapsed


async def metric(session: aiohttp.ClientSession, name: str) -> float:
    async with session.get("/metrics") as reply:
        return sample(await reply.text(), name)


async def encoded_once_stored(
    sessions: list[aiohttp.ClientSession], vectors: Any, phrases: list[str]
) -> list[float]:
    """The phrases each replica encoded so far, once every one of `phrases` has its
    vector stored and no replica has any waiting."""
    keys = list({vector_key(MODEL_ID, phrase_text(p, {})) for p in phrases})

    async def all_stored() -> bool:
        return bool(await vectors.count_documents({"_id": {"$in": keys}}) == len(keys))

    async def none_waiting() -> bool:
        return not any([await metric(s, "parley_phrase_vectors_waiting") for s in sessions])

    await eventually(all_stored, SETTLE_SECONDS)
    await eventually(none_waiting, SETTLE_SECONDS)
    return [await metric(s, "parley_phrase_vectors_encoded_total") for s in sessions]


async def encodings_per_edit(replicas: Replicas) -> list[list[float]]:
    """Per round, the phrases A, B and C encoded for an edit of PHRASES new phrases."""
    database = mongo.open_client(replicas.config.mongodb_url)
    vectors = database[replicas.config.bot_database]["phrase_vectors"]
    async with clients(replicas) as sessions:
        a, others = sessions[0], sessions[1:]
        story_id = (await ok(a, "POST", "/stories", {"name": "Shop", "description": ""}))["id"]
        body = {"name": "Hours", "userSays": ["when are you open"], "responses": []}
        hours = (await ok(a, "POST", f"/stories/{story_id}/interactions", body))["id"]
        listed = await ok(a, "GET", f"/stories/{story_id}/interactions")
        phrases = [p for interaction in listed for p in interaction["userSays"]]
        rounds = []
        for _ in range(ROUNDS):
            await asyncio.gather(*(compiled(s, story_id, phrases[-1]) for s in others))
            before = await encoded_once_stored(sessions, vectors, phrases)
            phrases = [f"are you open on day {n} of {uuid.uuid4().hex[:6]}" for n in range(PHRASES)]
            path = f"/stories/{story_id}/interactions/{hours}"
            await ok(a, "PUT", path, {"userSays": phrases})
            await asyncio.gather(*(compiled(s, story_id, phrases[-1]) for s in others))
            after = await encoded_once_stored(sessions, vectors, phrases)
            rounds.append([x - y for x, y in zip(after, before, strict=True)])
    await database.close()
    return rounds


async def compiled(replica: aiohttp.ClientSession, story_id: str, phrase: str) -> None:
    """Until the replica answers `phrase` with "Hours": it compiled the edit."""
    while True:
        interaction = (await asked(replica, story_id, phrase))["interaction"]
        if interaction is not None and interaction["name"] == "Hours":
            return


def _at(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def table() -> str:
    with replicas_on_servers(semantic_matching=False) as replicas:
        seconds = asyncio.run(edit_seconds(replicas))
        accepted, sent, elapsed = asyncio.run(accepted_over_replicas(replicas))
    with replicas_on_servers(semantic_matching=True) as replicas:
        rounds = asyncio.run(encodings_per_edit(replicas))
    p99 = _at(seconds, 0.99)
    promised = BURST + RATE * elapsed
    lines = [
        "Three bot-api processes on one nx-27017 and one nats-server, each called directly "
        "by its URL.",
        "",
        "| measure | figure | goal |",
        "|---|---|---|",
        f"| an edit on A answered by B and C: p50 / p99 / max over {EDITS} edits × 2 replicas "
        f"| {_at(seconds, 0.5) * 1000:.0f} / {p99 * 1000:.0f} / {max(seconds) * 1000:.0f} ms "
        f"| p99 ≤ {GOAL_SECONDS * 1000:.0f} ms: {'met' if p99 <= GOAL_SECONDS else 'missed'} |",
        f"| /query accepted with the account's limit ({RATE:.0f}/s after {BURST}) spread "
        f"over 3 replicas, {SENDERS} senders for {elapsed:.1f} s | {accepted} of {sent} "
        f"against {promised:.0f} for one replica ({accepted / promised - 1:+.1%}) "
        f"| ±10 %: {'met' if abs(accepted / promised - 1) <= 0.1 else 'missed'} |",
    ]
    for number, encoded in enumerate(rounds, 1):
        once = sum(encoded) == PHRASES
        lines.append(
            f"| phrases encoded by A / B / C for an edit of {PHRASES} on A, B and C compiling "
            f"it at once (round {number}) | {' / '.join(f'{e:.0f}' for e in encoded)} "
            f"({sum(encoded) / PHRASES:.2f} a phrase) | 1 a phrase: {'met' if once else 'missed'} |"
        )
    return "\n".join(lines)


def main() -> None:
    body = table()
    write_section("replicas", TITLE, body)
    print(body)


if __name__ == "__main__":
    main()
