"""A write cut short between its steps leaves nothing a reader can see as broken.

Each test leaves the database exactly as a crash between two steps would (see the
write orders in docs/architecture.md) and checks what the API shows.
"""

import uuid
from typing import Any

from pymongo import MongoClient

from bot_api.domain.interactions import STANDARD
from shared.config import Config
from support.api import Api


def leftover_interaction(story_id: str, account_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "_id": str(uuid.uuid4()),
        "accountId": account_id,
        "storyId": story_id,
        "type": STANDARD,
        "name": "Leftover",
        "action": "",
        "triggers": ["leftover"],
        "userSays": [],
        "parameters": [],
        "responses": [],
        "webhook": "",
        **fields,
    }


def owner_of_the_stories(config: Config) -> str:
    with MongoClient(config.mongodb_url) as client:
        story = client[config.bot_database]["stories"].find_one({}, {"accountId": 1})
    assert story is not None
    return str(story["accountId"])


async def test_an_interaction_written_but_never_linked_stays_invisible(
    api: Api, config: Config
) -> None:
    story_id = await api.create_story()
    await api.create_entity("size", "large")
    account_id = owner_of_the_stories(config)
    leftover = leftover_interaction(
        story_id, account_id, parameters=[{"alias": "size", "entity": "size", "prompts": []}]
    )
    with MongoClient(config.mongodb_url) as client:
        client[config.bot_database]["interactions"].insert_one(leftover)

    story = await api.story(story_id)
    assert leftover["_id"] not in story["interactions"]
    listed = await api.ok("GET", f"/stories/{story_id}/interactions")
    assert [i["name"] for i in listed] == ["Welcome", "Fallback"]
    reply = await api.get(f"/stories/{story_id}/interactions/{leftover['_id']}")
    assert reply.error == (404, "not_found")
    await api.create_interaction(story_id, "Fresh", triggers=["leftover"])
    entity_id = (await api.ok("GET", "/entities"))[0]["id"]
    await api.ok("DELETE", f"/entities/{entity_id}")


async def test_interactions_of_a_story_that_was_never_stored_stay_invisible(
    api: Api, config: Config
) -> None:
    await api.create_story("Kept")
    account_id = owner_of_the_stories(config)
    never_stored = "0123456789abcdef01234567"
    with MongoClient(config.mongodb_url) as client:
        client[config.bot_database]["interactions"].insert_one(
            leftover_interaction(never_stored, account_id)
        )
    assert [s["name"] for s in await api.ok("GET", "/stories")] == ["Kept"]
    assert (await api.get(f"/stories/{never_stored}/interactions")).error == (404, "not_found")
