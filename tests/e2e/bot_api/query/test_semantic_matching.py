"""The semantic stage with the real model, over HTTP: a message with no word in common
with any phrase still finds its interaction once the phrase vectors have landed."""

import asyncio
import dataclasses
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot_api.domain.history import TurnRecord
from bot_api.domain.interactions import default_interactions
from bot_api.domain.settings import Settings
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.engine.clustering import normalised
from bot_api.history.documents import turn_to_document
from bot_api.history.keys import RECORDER, TURN_STORE
from bot_api.story_cache.keys import PHRASE_VECTORS
from shared import mongo
from shared.config import Config
from support.api import Api
from support.waiting import eventually

VECTORS_TIMEOUT = 60.0


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, semantic_matching=True)


async def ask(api: Api, story_id: str, query: str) -> dict[str, Any]:
    body = {"sessionId": "s", "storyId": story_id, "query": query, "debug": True}
    result: dict[str, Any] = (await api.ok("POST", "/query", body))["result"]
    return result


async def vectors_landed(api: Api, story_id: str) -> None:
    """Wait until a paraphrase of Weather's phrases is scored by the semantic stage."""
    deadline = time.monotonic() + VECTORS_TIMEOUT
    while True:
        candidates = (await ask(api, story_id, "will I need an umbrella"))["debug"]["candidates"]
        if candidates and candidates[0]["semantic"] is not None:
            return
        assert time.monotonic() < deadline, "the phrase vectors never landed"
        await asyncio.sleep(0.2)


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
    # Whether the first query comes before the vectors land is a race on a fast machine:
    # tests/unit/bot_api/story_cache/test_phrase_vectors.py holds the encoder to show it.
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
    await vectors_landed(api, story_id)
    exact = {"sessionId": "s", "storyId": story_id, "query": "play some music"}
    await api.ok("POST", "/query", exact)
    app = api.client.server.app
    await app[RECORDER].idle()
    turns = await app[TURN_STORE].transcript(story_id, "s")
    encoded, said_exactly = turns[-2], turns[-1]
    assert encoded.query == "will I need an umbrella"
    assert encoded.vector is not None and len(encoded.vector) == 384
    assert said_exactly.vector is None, "an exact phrase answers without encoding"
    transcript = await api.ok("GET", f"/stories/{story_id}/conversations/s")
    assert "vector" not in transcript["turns"][-2]


async def test_the_inbox_suggests_as_a_query_would_from_the_vectors_its_turns_keep(
    api: Api, config: Config
) -> None:
    """A miss whose turn kept its sentence vector is suggested from it, one without is
    encoded (docs/history.md): both as /query would rank them."""
    story_id = await api.create_story("Home")
    weather = await api.create_interaction(
        story_id, "Weather", userSays=["what is the weather like", "is it sunny outside"]
    )
    await api.create_interaction(story_id, "Music", userSays=["play some music"])
    await vectors_landed(api, story_id)
    kept, encoded = "will I need an umbrella tomorrow", "should I bring a raincoat today"
    encoder = api.client.server.app[PHRASE_VECTORS].encoders.for_story(Settings())
    assert encoder is not None
    vector = encoder([normalised(kept)])[0]
    client = mongo.open_client(config.mongodb_url)
    now = datetime.now(UTC)  # after the turns already recorded: the inbox reads those since
    documents = [
        turn_to_document(
            TurnRecord(
                "account",
                story_id,
                text,
                now,
                "fallback",
                query=text,
                vector=v,
                vector_model=encoder.model_id if v else None,
            ),
            now + timedelta(days=30),
        )
        for text, v in ((kept, tuple(map(float, vector))), (encoded, None))
    ]
    await client[config.bot_database]["turns"].insert_many(documents)
    await client.close()
    clusters = (await api.ok("GET", f"/stories/{story_id}/inbox"))["clusters"]
    for cluster in clusters:
        best = (await ask(api, story_id, cluster["examples"][0]))["debug"]["candidates"][0]
        assert cluster["suggested"]["id"] == best["id"] == weather
        assert cluster["suggested"]["score"] == pytest.approx(best["score"], abs=0.01)
    # vectors_landed's own question may be a miss of its own
    assert {kept, encoded} <= {c["examples"][0] for c in clusters}


async def test_an_imported_story_counts_its_phrases_waiting_for_meaning_before_any_query(
    api: Api,
) -> None:
    """The process that took the import queues the story's phrases at once: its read
    says how many wait (the import's response never waited for them), 0 once they land."""
    batch = uuid.uuid4().hex[:8]
    document = {
        "format": "parley.story",
        "version": 1,
        "name": "Questions",
        "interactions": [
            {
                "key": f"topic-{topic}",
                "name": f"Topic {topic}",
                "root": True,
                "userSays": [f"question {n} of topic {topic} in batch {batch}" for n in range(9)],
            }
            for topic in range(4)
        ],
    }
    story_id = (await api.ok("POST", "/stories/import", document))["id"]

    async def waiting() -> int:
        count: int = (await api.story(story_id))["phrasesAwaitingMeaning"]
        return count

    async def landed() -> bool:
        return await waiting() == 0

    phrases = 4 * 9 + len(default_interactions()[0].user_says)  # the import adds a welcome
    assert await eventually(waiting) <= phrases, "at most the story's own phrases wait"
    await eventually(landed, seconds=VECTORS_TIMEOUT)


def test_the_encoders_of_one_process_share_one_quantised_model() -> None:
    """Quantising takes 2 to 4 s of a core: each app a process makes (here one per test)
    would take them again."""
    first, second = MiniLmEncoder(), MiniLmEncoder()
    assert first._session is second._session
    assert (
        first(["will I need an umbrella"]).tolist() == second(["will I need an umbrella"]).tolist()
    )
