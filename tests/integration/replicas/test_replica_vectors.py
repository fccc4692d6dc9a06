"""A phrase's vector is encoded once across the replicas, by the one that took the write:
a replica compiling a story, or an edit of it, reads the vectors stored, and awaits those
its writer is still encoding instead of encoding them too; a phrase nobody encodes is
encoded by a replica that awaited it, after `PHRASE_VECTOR_WAIT_SECONDS` (docs/scaling.md
"What holds across replicas, tested"; make bench measures the race these tests run:
docs/benchmarks.md "What holds across three replicas")."""

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pymongo import AsyncMongoClient

from bench.stack import Replicas
from bot_api.encoding.minilm import MODEL_ID
from bot_api.engine.semantic import phrase_text, vector_key
from shared import mongo
from support.api import Api, Tenant
from support.replicas import metric
from support.waiting import eventually

SETTLE_SECONDS = 60.0
"""The bound for phrases to be encoded and stored: the first encoding of a process loads
the model (2 to 4 s of one core) and the machine is shared."""
WAIT_SECONDS = 5.0
"""The replicas' `PHRASE_VECTOR_WAIT_SECONDS`, short for the test of phrases nobody
encodes; a writer stores a chunk of this module's phrases in well under a second, so
the others never stop waiting for it before it lands."""
PHRASES = 99
"""The phrases of the edit the others compile at once: as many as an interaction holds,
and long (about 64 tokens), so that the writer is still encoding them when the others
compile the edit."""


@pytest.fixture(scope="module")
def replica_settings() -> dict[str, Any]:
    return {"semantic_matching": True, "phrase_vector_wait_seconds": WAIT_SECONDS}


@pytest.fixture
async def vectors(replicas: Replicas) -> AsyncIterator[Any]:
    client: AsyncMongoClient[Any] = mongo.open_client(replicas.config.mongodb_url)
    yield client[replicas.config.bot_database]["phrase_vectors"]
    await client.close()


def keys_of(phrases: list[str]) -> list[str]:
    return list({vector_key(MODEL_ID, phrase_text(p, {})) for p in phrases})


def long_phrases(count: int) -> list[str]:
    tag = uuid.uuid4().hex[:6]
    return [
        f"are you open on day {n} of the {tag} fair when the market square fills with stalls "
        "selling bread and cheese and flowers while the old clock tower rings every hour and "
        "the children run between the carts of apples pears plums and the musicians play "
        "until the lamps are lit along the river where the boats are tied for the night"
        for n in range(count)
    ]


async def stored(vectors: Any, phrases: list[str]) -> None:
    """Until every phrase has its vector in the database."""
    keys = keys_of(phrases)

    async def all_there() -> bool:
        return bool(await vectors.count_documents({"_id": {"$in": keys}}) == len(keys))

    await eventually(all_there, SETTLE_SECONDS)


async def encoded(apis: list[Api]) -> list[float]:
    """How many phrases each replica encoded so far, once none waits in any."""

    async def none_waiting() -> bool:
        return not any([await metric(api, "parley_phrase_vectors_waiting") for api in apis])

    await eventually(none_waiting, SETTLE_SECONDS)
    return [await metric(api, "parley_phrase_vectors_encoded_total") for api in apis]


async def compiled(api: Api, story_id: str, phrase: str) -> None:
    """Until the replica matches `phrase` as a phrase of Hours: it compiled the story as
    edited (a phrase it had before may answer Hours too, closest to its own)."""

    async def matches_it() -> bool:
        body = {"storyId": story_id, "sessionId": uuid.uuid4().hex, "query": phrase, "debug": True}
        best = (await api.ok("POST", "/query", body))["result"]["debug"]["candidates"][0]
        return bool(best["name"] == "Hours" and best["phrase"] == phrase)

    await eventually(matches_it, 5.0)


async def by_meaning(api: Api, story_id: str) -> None:
    """Until the replica scores Hours by its phrases' vectors: they landed there."""

    async def scored() -> bool:
        query = "when does the stall market open its gates"
        body = {"storyId": story_id, "sessionId": uuid.uuid4().hex, "query": query, "debug": True}
        candidates = (await api.ok("POST", "/query", body))["result"]["debug"]["candidates"]
        return any(c["name"] == "Hours" and c["semantic"] is not None for c in candidates)

    await eventually(scored, SETTLE_SECONDS)


async def story_nobody_encodes(editor: Api, vectors: Any) -> tuple[str, list[str]]:
    """A story of three phrases whose vectors were stored, then taken from the database,
    as if the replica that took the write died before encoding: its id and phrases."""
    story_id = await editor.create_story("Shop")
    new = long_phrases(3)
    await editor.create_interaction(story_id, "Hours", userSays=new)
    await stored(vectors, new)
    await vectors.delete_many({"_id": {"$in": keys_of(new)}})
    return story_id, new


async def test_an_edit_is_encoded_once_across_the_replicas_and_read_by_all(
    tenant: list[Tenant], vectors: Any, record_property: Any
) -> None:
    apis = [t.developer for t in tenant]
    editor, others = apis[0], apis[1:]
    story_id = await editor.create_story("Shop")
    hours = await editor.create_interaction(story_id, "Hours", userSays=["when are you open"])
    listed = await editor.ok("GET", f"/stories/{story_id}/interactions")
    await stored(vectors, [p for i in listed for p in i["userSays"]])
    before = await encoded(apis)
    for api in others:
        await compiled(api, story_id, "when are you open")
    assert await encoded(apis) == before  # the others read every vector A stored

    new = long_phrases(PHRASES)
    await editor.ok("PUT", f"/stories/{story_id}/interactions/{hours}", {"userSays": new})

    async def compiled_while_encoded(api: Api) -> float:
        """Once the replica compiled the edit, how many of its phrases it awaits."""
        await compiled(api, story_id, new[-1])
        return await metric(api, "parley_phrase_vectors_waiting")

    awaited = await asyncio.gather(*(compiled_while_encoded(api) for api in others))
    for api in others:
        await by_meaning(api, story_id)
    after = await encoded(apis)
    by_replica = [a - b for a, b in zip(after, before, strict=True)]
    record_property("phrases B and C awaited once they compiled the edit", awaited)
    record_property("phrases encoded by A, B, C after the edit", by_replica)
    assert by_replica == [len(new), 0, 0]


async def test_phrases_nobody_encoded_are_encoded_by_a_replica_after_the_wait(
    tenant: list[Tenant], vectors: Any, record_property: Any
) -> None:
    """As if the replica that took the write died before encoding: the vectors it stored
    are taken from the database before another replica first compiles the story."""
    apis = [t.developer for t in tenant]
    editor, other = apis[0], apis[1]
    story_id, new = await story_nobody_encodes(editor, vectors)
    before = await encoded(apis)
    started = time.monotonic()
    await by_meaning(other, story_id)
    record_property("seconds until B answered by meaning", round(time.monotonic() - started, 1))
    after = await encoded(apis)
    assert [a - b for a, b in zip(after, before, strict=True)] == [0, len(new), 0]
    assert time.monotonic() - started >= WAIT_SECONDS, "B awaited them from the others first"


async def test_a_story_deleted_on_another_replica_is_awaited_no_more(
    tenant: list[Tenant], vectors: Any
) -> None:
    """B awaits phrases nobody is encoding; once A deletes the story, B forgets them at
    once (the deletion heard over NATS), well before its wait would have it encode them."""
    apis = [t.developer for t in tenant]
    editor, other = apis[0], apis[1]
    story_id, new = await story_nobody_encodes(editor, vectors)
    before = await encoded(apis)
    await compiled(other, story_id, new[0])
    awaiting_since = time.monotonic()

    async def awaiting(count: float) -> bool:
        return await metric(other, "parley_phrase_vectors_waiting") == count

    await eventually(lambda: awaiting(len(new)), 1.0)
    assert (await editor.delete(f"/stories/{story_id}")).status == 200
    await eventually(lambda: awaiting(0), WAIT_SECONDS / 2)
    assert time.monotonic() - awaiting_since < WAIT_SECONDS, "forgotten, not encoded late"
    assert await encoded(apis) == before
