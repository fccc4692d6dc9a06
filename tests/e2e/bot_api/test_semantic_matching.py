"""The semantic stage with the real model, over HTTP: a message with no word in common
with any phrase still finds its interaction once the phrase vectors have landed."""

import asyncio
import dataclasses
import time
from typing import Any

import pytest

from bot_api.keys import RECORDER, STORES
from shared.config import Config
from support.api import Api

VECTORS_TIMEOUT = 60.0


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, semantic_matching=True)


async def ask(api: Api, story_id: str, query: str) -> dict[str, Any]:
    body = {"sessionId": "s", "storyId": story_id, "query": query, "debug": True}
    result: dict[str, Any] = (await api.ok("POST", "/query", body))["result"]
    return result


async def test_a_paraphrase_matches_once_the_vectors_land_and_debug_shows_both_stages(
    api: Api,
) -> None:
    story_id = await api.create_story("Home")
    weather = await api.create_interaction(
        story_id, "Weather", userSays=["what is the weather like", "is it sunny outside"]
    )
    await api.create_interaction(
        story_id, "Music", userSays=["play some music", "put on a song I like"]
    )
    before = await ask(api, story_id, "will I need an umbrella tomorrow")
    assert all(c["semantic"] is None for c in before["debug"]["candidates"])
    deadline = time.monotonic() + VECTORS_TIMEOUT
    while True:
        after = await ask(api, story_id, "will I need an umbrella tomorrow")
        if after["debug"]["candidates"][0]["semantic"] is not None:
            break
        assert time.monotonic() < deadline, "the phrase vectors never landed"
        await asyncio.sleep(0.2)
    assert after["interaction"]["id"] == weather
    assert after["score"] >= 0.5
    best = after["debug"]["candidates"][0]
    assert best["lexical"] < 0.5 < best["score"]


async def test_the_history_keeps_the_sentence_vector_the_semantic_stage_encoded(
    api: Api,
) -> None:
    story_id = await api.create_story("Home")
    await api.create_interaction(
        story_id, "Weather", userSays=["what is the weather like", "is it sunny outside"]
    )
    await api.create_interaction(story_id, "Music", userSays=["play some music"])
    deadline = time.monotonic() + VECTORS_TIMEOUT
    while True:
        candidates = (await ask(api, story_id, "will I need an umbrella"))["debug"]["candidates"]
        if candidates and candidates[0]["semantic"] is not None:
            break
        assert time.monotonic() < deadline, "the phrase vectors never landed"
        await asyncio.sleep(0.2)
    exact = {"sessionId": "s", "storyId": story_id, "query": "play some music"}
    await api.ok("POST", "/query", exact)
    app = api.client.server.app
    await app[RECORDER].idle()
    turns = await app[STORES].turns.transcript(story_id, "s")
    encoded, said_exactly = turns[-2], turns[-1]
    assert encoded.query == "will I need an umbrella"
    assert encoded.vector is not None and len(encoded.vector) == 384
    assert said_exactly.vector is None, "an exact phrase answers without encoding"
    transcript = await api.ok("GET", f"/stories/{story_id}/conversations/s")
    assert "vector" not in transcript["turns"][-2]
