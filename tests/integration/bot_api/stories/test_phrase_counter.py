"""The phrase quota is checked by a counter in the story document (not by counting the
story's interactions on each write): through adds, content updates, deletes and
concurrent adds it stays exact, so the quota answers 409 at exactly its limit; a story
stored before the counter is counted once; a counter that drifted high never refuses
wrongly."""

import asyncio
import dataclasses
from typing import Any

import pytest
from bson import ObjectId
from pymongo import AsyncMongoClient

from shared.config import Config
from support.api import Api

PHRASES = 20


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, quota_phrases_per_story=PHRASES)


def phrases(count: int, prefix: str = "p") -> list[str]:
    return [f"{prefix} {n}" for n in range(count)]


async def counted_phrases(mongo_client: AsyncMongoClient, config: Config, story_id: str) -> Any:
    """The story's phrase counter as stored (docs/architecture.md "Data model")."""
    stories = mongo_client[config.bot_database]["stories"]
    story = await stories.find_one({"_id": ObjectId(story_id)})
    assert story is not None
    return story.get("phrases")


async def new_story(api: Api) -> str:
    """A story whose welcome answers no greeting, so that its count starts at 0."""
    story_id = await api.create_story()
    base = f"/stories/{story_id}/interactions"
    welcome = next(i["id"] for i in await api.ok("GET", base) if i["type"] == "welcome")
    await api.ok("PUT", f"{base}/{welcome}", {"userSays": []})
    return story_id


async def refused_phrase(api: Api, story_id: str) -> None:
    refused = await api.post(
        f"/stories/{story_id}/interactions", {"name": "one more", "userSays": ["more"]}
    )
    assert refused.error == (409, "conflict")
    assert refused.body["status"]["errors"] == {"quota": "phrasesPerStory", "limit": PHRASES}


async def test_the_phrase_quota_stays_exact_through_adds_updates_and_deletes(
    api: Api, mongo_client: AsyncMongoClient, config: Config
) -> None:
    story_id = await new_story(api)
    base = f"/stories/{story_id}/interactions"

    async def counted_after(write: Any) -> Any:
        await write
        return await counted_phrases(mongo_client, config, story_id)

    parent = await api.create_interaction(story_id, "parent", userSays=phrases(2))
    child = await api.create_interaction(story_id, "child", parent, userSays=phrases(3))
    assert await counted_phrases(mongo_client, config, story_id) == 5
    assert await counted_after(api.ok("PUT", f"{base}/{parent}", {"userSays": phrases(1)})) == 4
    assert await counted_after(api.ok("PUT", f"{base}/{parent}", {"name": "same phrases"})) == 4
    kept = await api.create_interaction(story_id, "kept", userSays=phrases(PHRASES - 4))
    assert await counted_phrases(mongo_client, config, story_id) == PHRASES
    await refused_phrase(api, story_id)

    # The parent goes with the child it owns: 1 + 3 phrases.
    assert await counted_after(api.ok("DELETE", base, [parent])) == PHRASES - 4
    assert await counted_after(api.ok("PUT", f"{base}/{kept}", {"userSays": phrases(2)})) == 2
    await api.create_interaction(story_id, "refill", userSays=phrases(PHRASES - 2))

    assert await counted_phrases(mongo_client, config, story_id) == PHRASES
    await refused_phrase(api, story_id)
    listed = {i["id"] for i in await api.ok("GET", base)}
    assert kept in listed and not {parent, child} & listed


async def test_concurrent_adds_keep_every_interaction_and_the_phrase_count(
    api: Api, mongo_client: AsyncMongoClient, config: Config
) -> None:
    story_id = await new_story(api)
    parent = await api.create_interaction(story_id, "parent")

    added = await asyncio.gather(
        *(
            api.create_interaction(
                story_id, f"add {n}", parent if n % 2 else None, userSays=phrases(2, f"a{n}")
            )
            for n in range(8)
        )
    )

    story = await api.story(story_id)
    assert set(added) <= set(story["interactions"])
    assert len(story["interactions"]) == 2 + 1 + 8
    assert set(story["interactions"][parent]["contextOut"]) == set(added[1::2])
    assert await counted_phrases(mongo_client, config, story_id) == 16
    await api.create_interaction(story_id, "last", userSays=phrases(PHRASES - 16))
    await refused_phrase(api, story_id)


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param({"$unset": {"phrases": 1}}, id="a story stored before the counter"),
        pytest.param({"$set": {"phrases": PHRASES}}, id="a counter that drifted high"),
    ],
)
async def test_the_next_add_counts_the_story_and_never_refuses_wrongly(
    api: Api, mongo_client: AsyncMongoClient, config: Config, stored: dict[str, Any]
) -> None:
    story_id = await new_story(api)
    await api.create_interaction(story_id, "old", userSays=phrases(3))
    stories = mongo_client[config.bot_database]["stories"]
    await stories.update_one({"_id": ObjectId(story_id)}, stored)

    await api.create_interaction(story_id, "new", userSays=phrases(2))

    assert await counted_phrases(mongo_client, config, story_id) == 5
