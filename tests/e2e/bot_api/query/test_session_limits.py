"""A session's parameters are bounded in number and size: beyond, a clear 400, and the
stored document stays small whatever a client sends (docs/reliability.md)."""

import json
from typing import Any

import bson
from aiohttp.test_utils import TestClient
from pymongo import MongoClient

from bot_api.query.repository import MAX_SESSION_BYTES, MAX_SESSION_PARAMETERS
from shared.config import Config
from support.api import Api
from support.responsiveness import healthz_probed


def parameters(prefix: str, count: int, value: str = "v") -> dict[str, Any]:
    return {f"{prefix}{n}": value for n in range(count)}


def session_bytes(config: Config) -> list[int]:
    with MongoClient(config.mongodb_url) as client:
        sessions = client[config.bot_database]["sessions"]
        return [len(bson.encode(document)) for document in sessions.find()]


async def test_parameters_accumulated_beyond_the_bound_answer_400_and_the_session_lives_on(
    api: Api, story_id: str
) -> None:
    first = await api.post(
        "/query", {"sessionId": "s", "query": "hi", "parameters": parameters("a", 60)}
    )
    assert first.status == 200, first.body
    second = await api.post(
        "/query", {"sessionId": "s", "query": "hi", "parameters": parameters("b", 60)}
    )
    assert second.error == (400, "validation_error")
    assert f"more than {MAX_SESSION_PARAMETERS}" in second.details
    assert second.details.startswith("parameters:")
    after = await api.post("/query", {"sessionId": "s", "query": "hi"})
    assert after.status == 200
    assert len(after.body["result"]["parameters"]) == 60
    restarted = await api.post(
        "/query",
        {"sessionId": "s", "query": "hi", "reset": True, "parameters": parameters("b", 60)},
    )
    assert restarted.status == 200
    assert set(restarted.body["result"]["parameters"]) == set(parameters("b", 60))


async def test_parameters_too_large_in_bytes_answer_400(api: Api, story_id: str) -> None:
    wide = "x" * 2048
    reply = await api.post(
        "/query", {"sessionId": "s", "query": "hi", "parameters": parameters("p", 40, wide)}
    )
    assert reply.error == (400, "validation_error")
    assert f"more than {MAX_SESSION_BYTES}" in reply.details


async def test_a_flood_of_large_parameters_never_grows_a_session_past_its_bound(
    api: Api, story_id: str, config: Config, bot_api: TestClient
) -> None:
    """The campaign's attack: 82 turns of 99 fresh 2 KB parameters made a 16.7 MB session
    that answered every later turn with a 500."""
    statuses = []
    async with healthz_probed(bot_api) as probe:
        for turn in range(82):
            reply = await api.post(
                "/query",
                {
                    "sessionId": "s",
                    "query": "hi",
                    "parameters": parameters(f"t{turn}x", 99, "x" * 2048),
                },
            )
            statuses.append(reply.status)
    print(probe.report("session flood (82 turns)"))
    assert set(statuses) == {400}  # within the count, over the bytes
    assert max(session_bytes(config), default=0) <= MAX_SESSION_BYTES
    small = await api.post("/query", {"sessionId": "s", "query": "hi"})
    assert small.status == 200
    assert len(json.dumps(small.body)) < 10_000
