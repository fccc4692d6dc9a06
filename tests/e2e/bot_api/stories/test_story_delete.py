"""DELETE /stories/{id} empties every collection of that story, and only of that story.

Two stories are given something in every collection bot-api keeps per story, through the
API where the API writes it (interactions, versions, conversation tests and their run,
sessions, turns and conversation summaries, analytics, ignored inbox texts) and through
the repositories where other processes or the semantic stage write it (the connection
view, phrase vectors, the inbox snapshot a whole read writes). One is deleted. The table
below names every collection of bot-api's database with how to find a story's documents
in it; the database's collections and docs/architecture.md's list must both be the
table's, so a collection added without a line here (and in the cascade,
`StoryService.delete`) fails this test."""

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp.test_utils import TestClient
from bson import ObjectId
from pymongo import MongoClient

from bot_api.connections.repository import ConnectionViewRepository
from bot_api.engine.clustering import Miss
from bot_api.history.keys import RECORDER
from bot_api.inbox.snapshots import InboxSnapshot, InboxSnapshotRepository, encoded
from bot_api.story_cache.repository import PhraseVectorRepository
from bot_api.story_tests.keys import CONVERSATION_TESTS
from shared.config import Config
from shared.events import ConnectionChanged
from shared.ids import new_object_id
from shared.mongo import open_client
from shared.timeutil import utcnow
from support.api import Tenant

ARCHITECTURE = Path(__file__).parents[4] / "docs" / "architecture.md"

Filter = Callable[[str], Mapping[str, Any]]


def by_story_field(story_id: str) -> Mapping[str, Any]:
    return {"storyId": story_id}


OF_A_STORY: dict[str, Filter] = {
    "stories": lambda story_id: {"_id": ObjectId(story_id)},
    "interactions": by_story_field,
    "story_versions": by_story_field,
    "conversation_tests": by_story_field,
    "conversation_test_runs": lambda story_id: {"_id": story_id},
    "sessions": lambda story_id: {"_id": {"$regex": f"^{story_id}:"}},
    "turns": by_story_field,
    "conversations": by_story_field,
    "analytics_hours": by_story_field,
    "analytics_conversations": by_story_field,
    "inbox_ignored": by_story_field,
    "inbox_snapshots": lambda story_id: {"_id": story_id},
    "inbox_snapshot_parts": by_story_field,
    "connections": by_story_field,
    "phrase_vectors": lambda story_id: {"stories": {"$in": [story_id]}},
    "knowledge_documents": by_story_field,
    "knowledge_passages": by_story_field,
    "knowledge_frozen": by_story_field,
}
OF_NO_STORY = {
    "entities": "the account's, used by all its stories",
    "outbox": "events on their way to NATS (the deletion's among them)",
    "idempotency_keys": "the first answer to each retried create, expiring on their own",
}
GREETS = {
    "name": "greets",
    "turns": [{"trigger": "welcome", "expect": {"interaction": "Welcome", "fallback": False}}],
}


async def give_it_everything(bot_api: TestClient, alice: Tenant, config: Config) -> str:
    """A story with a document of its own in each collection of `OF_A_STORY`."""
    api, app = alice.developer, bot_api.app
    story_id = await api.create_story("Pizza")
    await api.create_interaction(story_id, "Order", userSays=["I want a pizza"])
    dough = {"title": "Dough", "text": "The pizza dough rests for a day before it is baked."}
    await api.ok("POST", f"/stories/{story_id}/knowledge", dough)
    await api.ok("POST", f"/stories/{story_id}/versions", {"note": "first"})
    await api.ok("POST", f"/stories/{story_id}/tests", GREETS)
    for message in ("I want a pizza", "the moon and the stars"):
        body = {"storyId": story_id, "sessionId": "s1", "query": message}
        await alice.public.ok("POST", "/query", body)
    await app[RECORDER].idle()
    await app[CONVERSATION_TESTS].idle()
    [miss] = (await api.ok("GET", f"/stories/{story_id}/inbox"))["clusters"]
    await api.ok("POST", f"/stories/{story_id}/inbox/{miss['id']}/ignore", {})
    client = open_client(config.mongodb_url)
    try:
        database = client[config.bot_database]
        account_id = alice.tokens.account_id
        hook = ConnectionChanged(new_object_id(), account_id, story_id, "Hook", "https://h", 1)
        await ConnectionViewRepository(database).apply(hook)
        vector = np.ones((1, 4), dtype=np.float32)
        await PhraseVectorRepository(database).put("model", story_id, {story_id: vector})
        snapshots = InboxSnapshotRepository(database)  # the ignore dropped the last one
        inbox = InboxSnapshot((0.65, None), [Miss("t", "the moon", utcnow())], utcnow())
        assert await snapshots.write(story_id, await snapshots.generation(story_id), encoded(inbox))
    finally:
        await client.close()
    return story_id


def documented_collections() -> set[str]:
    [row] = [line for line in ARCHITECTURE.read_text().splitlines() if line.startswith("| bot-api")]
    owns = row.split("|")[3]
    return set(re.findall(r"`([a-z_]+)`", owns))


def counts(database: Any, story_id: str) -> dict[str, int]:
    """Counted by reading the ids: the embedded server's `count_documents` finds no
    document by an ObjectId `_id`."""
    return {
        name: len(list(database[name].find(of_story(story_id), ["_id"])))
        for name, of_story in OF_A_STORY.items()
    }


async def test_a_delete_empties_every_collection_of_that_story_only(
    bot_api: TestClient, alice: Tenant, config: Config
) -> None:
    doomed = await give_it_everything(bot_api, alice, config)
    kept = await give_it_everything(bot_api, alice, config)
    with MongoClient(config.mongodb_url) as client:
        database = client[config.bot_database]
        assert set(database.list_collection_names()) == OF_A_STORY.keys() | OF_NO_STORY.keys()
        assert documented_collections() == OF_A_STORY.keys() | OF_NO_STORY.keys()
        before = counts(database, doomed)
        assert all(before.values()), before

        await alice.developer.ok("DELETE", f"/stories/{doomed}")

        assert counts(database, doomed) == dict.fromkeys(OF_A_STORY, 0)
        assert counts(database, kept) == before
    assert (await alice.developer.delete(f"/stories/{doomed}")).error == (404, "not_found")
