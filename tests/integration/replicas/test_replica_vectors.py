"""A phrase's vector is encoded by the replica that took the write and read by the
others: a replica compiling a story, or an edit of it, whose vectors are stored encodes
none of them (docs/scaling.md "What holds across replicas, tested"). Not held here, as
it does not hold: a replica that compiles an edit before its vectors land encodes them
too (make bench: each of three replicas encoded all 64 phrases of an edit in two rounds
of three, docs/benchmarks.md "What holds across three replicas")."""

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


@pytest.fixture(scope="module")
def replica_settings() -> dict[str, Any]:
    return {"semantic_matching": True}


@pytest.fixture
async def vectors(replicas: Replicas) -> AsyncIterator[Any]:
    client: AsyncMongoClient[Any] = mongo.open_client(replicas.config.mongodb_url)
    yield client[replicas.config.bot_database]["phrase_vectors"]
    await client.close()


async def stored(vectors: Any, phrases: list[str]) -> None:
    """Until every phrase has its vector in the database."""
    keys = [vector_key(MODEL_ID, phrase_text(p, {})) for p in phrases]

    async def all_there() -> bool:
        return bool(await vectors.count_documents({"_id": {"$in": keys}}) == len(set(keys)))

    await eventually(all_there, SETTLE_SECONDS)


async def encoded(apis: list[Api]) -> list[float]:
    """How many phrases each replica encoded so far, once none waits in any."""

    async def none_waiting() -> bool:
        return not any([await metric(api, "parley_phrase_vectors_waiting") for api in apis])

    await eventually(none_waiting, SETTLE_SECONDS)
    return [await metric(api, "parley_phrase_vectors_encoded_total") for api in apis]


async def compiled(api: Api, story_id: str, phrase: str) -> None:
    """Until the replica answers `phrase` with "Hours": it compiled the story as edited."""

    async def answers_hours() -> bool:
        body = {"storyId": story_id, "sessionId": uuid.uuid4().hex, "query": phrase}
        interaction = (await api.ok("POST", "/query", body))["result"]["interaction"]
        return interaction is not None and interaction["name"] == "Hours"

    await eventually(answers_hours, 5.0)


async def test_a_phrase_is_encoded_by_the_replica_that_took_it_and_read_by_the_others(
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

    new = [f"are you open on day {n} of {uuid.uuid4().hex[:6]}" for n in range(40)]
    await editor.ok("PUT", f"/stories/{story_id}/interactions/{hours}", {"userSays": new})
    await stored(vectors, new)
    for api in others:
        await compiled(api, story_id, new[-1])
    after = await encoded(apis)
    by_replica = [a - b for a, b in zip(after, before, strict=True)]
    record_property("phrases encoded by A, B, C after the edit", by_replica)
    assert by_replica == [len(new), 0, 0]
