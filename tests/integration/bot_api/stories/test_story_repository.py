"""StoryRepository on the embedded MongoDB and its in-memory twin, held to one contract:
three accounts with three stories each; every call reads or changes exactly the story it
names, through its own account only."""

import dataclasses
import uuid
from collections.abc import AsyncIterator

import pytest
from bson import ObjectId
from pymongo import AsyncMongoClient

from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.stories.repository import StoryFields, StoryRepository, StoryStore
from integration.bot_api.stories.memory import StoriesInMemory
from shared.config import Config
from shared.ids import new_object_id
from shared.pages import Page
from support.documents import ACCOUNTS, Documents, changed, contents
from support.memory import Database

STRUCTURE = Structure.for_new_story(["welcome", "fallback"]).add_root("order")


@pytest.fixture(params=["mongodb", "memory"])
async def stories(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[StoryStore]:
    store: StoryStore
    if request.param == "mongodb":
        store = StoryRepository(mongo_client[config.bot_database])
    else:
        store = Database().stories
    await store.ensure_indexes()
    yield store


async def seed(stories: StoryStore) -> dict[tuple[str, int], str]:
    """Three stories per account, created in turns across the accounts: (account, n) -> id."""
    ids = {}
    for n in range(3):
        for account in ACCOUNTS:
            ids[account, n] = new_object_id()
            await stories.insert(
                ids[account, n], account, f"Story {n}", "", Settings(), STRUCTURE, phrases=n
            )
    return ids


async def snapshot(stories: StoryStore) -> Documents:
    if isinstance(stories, StoryRepository):
        return await contents(stories.collection)
    assert isinstance(stories, StoriesInMemory)
    return dict(stories.records)


async def forget_the_counter(stories: StoryStore, story_id: str) -> None:
    """The story as stored before the phrase counter existed."""
    if isinstance(stories, StoryRepository):
        await stories.collection.update_one({"_id": ObjectId(story_id)}, {"$unset": {"phrases": 1}})
    else:
        assert isinstance(stories, StoriesInMemory)
        stories.records[story_id] = dataclasses.replace(stories.records[story_id], phrases=None)


async def test_insert_adds_one_story_with_default_settings_and_revision_1(
    stories: StoryStore,
) -> None:
    await seed(stories)
    before = await snapshot(stories)

    story_id = new_object_id()
    await stories.insert(
        story_id, ACCOUNTS[1], "New", "d", Settings(lifespan=5), STRUCTURE, phrases=7
    )

    after = await snapshot(stories)
    assert changed(before, after) == {story_id}
    record = await stories.get(ACCOUNTS[1], story_id)
    assert record is not None
    assert (record.name, record.description, record.revision) == ("New", "d", 1)
    assert record.settings == Settings(confidence=0.5, fallback=True, lifespan=5)
    assert record.structure == STRUCTURE
    assert record.phrases == 7


async def test_list_returns_the_account_s_stories_oldest_first_with_name_and_description(
    stories: StoryStore,
) -> None:
    ids = await seed(stories)
    for account in ACCOUNTS:
        listed = await stories.list(account, Page())
        assert [str(d["_id"]) for d in listed] == [ids[account, n] for n in range(3)]
        assert all(set(d) == {"_id", "name", "description"} for d in listed)


async def test_get_finds_a_story_only_through_its_own_account(stories: StoryStore) -> None:
    ids = await seed(stories)
    for (account, n), story_id in ids.items():
        record = await stories.get(account, story_id)
        assert record is not None
        assert (record.id, record.account_id, record.name) == (story_id, account, f"Story {n}")
        for other in ACCOUNTS:
            if other != account:
                assert await stories.get(other, story_id) is None
    assert await stories.get(ACCOUNTS[0], "not-an-id") is None


async def test_update_changes_the_story_read_at_its_revision_only(stories: StoryStore) -> None:
    ids = await seed(stories)
    story = await stories.get(ACCOUNTS[1], ids[ACCOUNTS[1], 1])
    assert story is not None
    before = await snapshot(stories)

    structure = STRUCTURE.add_root("track")
    fields = StoryFields("Renamed", "new", Settings(lifespan=4, review_below=0.7), "c" * 24)
    assert await stories.update(story, fields, structure, added_phrases=-1)

    after = await snapshot(stories)
    assert changed(before, after) == {story.id}
    updated = await stories.get(ACCOUNTS[1], story.id)
    assert updated is not None
    assert (updated.name, updated.revision, updated.structure) == ("Renamed", 2, structure)
    assert (updated.description, updated.settings) == ("new", fields.settings)
    assert updated.published == "c" * 24
    assert updated.phrases == 0
    assert await stories.update(updated, None, STRUCTURE)
    kept = await stories.get(ACCOUNTS[1], story.id)
    assert kept == dataclasses.replace(updated, structure=STRUCTURE, revision=3)


async def test_update_of_a_stale_revision_or_through_another_account_changes_nothing(
    stories: StoryStore,
) -> None:
    ids = await seed(stories)
    story = await stories.get(ACCOUNTS[2], ids[ACCOUNTS[2], 0])
    assert story is not None
    assert await stories.update(story, StoryFields("First", "", Settings(), None))
    before = await snapshot(stories)

    assert not await stories.update(story, StoryFields("Stale", "", Settings(), None))
    fresh = await stories.get(ACCOUNTS[2], story.id)
    assert fresh is not None
    stranger = dataclasses.replace(fresh, account_id=ACCOUNTS[0])
    assert not await stories.update(stranger, StoryFields("Stolen", "", Settings(), None))

    assert await snapshot(stories) == before


async def test_delete_deletes_one_story_of_its_own_account(stories: StoryStore) -> None:
    ids = await seed(stories)
    target = ids[ACCOUNTS[0], 2]
    before = await snapshot(stories)

    assert not await stories.delete(ACCOUNTS[1], target)
    assert not await stories.delete(ACCOUNTS[0], "not-an-id")
    assert await snapshot(stories) == before

    assert await stories.delete(ACCOUNTS[0], target)
    after = await snapshot(stories)
    assert changed(before, after) == {target}
    assert len(after) == len(before) - 1


async def test_add_interaction_lists_a_root_or_a_child_in_the_story_read_at_its_revision_only(
    stories: StoryStore,
) -> None:
    ids = await seed(stories)
    story = await stories.get(ACCOUNTS[0], ids[ACCOUNTS[0], 2])
    assert story is not None
    root, child = str(uuid.uuid4()), str(uuid.uuid4())
    before = await snapshot(stories)

    assert await stories.add_interaction(story, root, None, 3)
    added = await stories.get(ACCOUNTS[0], story.id)
    assert added is not None
    assert await stories.add_interaction(added, child, root, 0)

    after = await snapshot(stories)
    assert changed(before, after) == {story.id}
    stored = await stories.get(ACCOUNTS[0], story.id)
    assert stored is not None
    assert stored.structure == STRUCTURE.add_root(root).add_child(root, child)
    assert (stored.revision, stored.phrases) == (3, 2 + 3)


async def test_add_interaction_of_a_stale_revision_or_through_another_account_changes_nothing(
    stories: StoryStore,
) -> None:
    ids = await seed(stories)
    story = await stories.get(ACCOUNTS[1], ids[ACCOUNTS[1], 0])
    assert story is not None
    assert await stories.update(story, StoryFields("First", "", Settings(), None))
    before = await snapshot(stories)

    assert not await stories.add_interaction(story, str(uuid.uuid4()), None, 1)
    fresh = await stories.get(ACCOUNTS[1], story.id)
    assert fresh is not None
    stranger = dataclasses.replace(fresh, account_id=ACCOUNTS[2])
    assert not await stories.add_interaction(stranger, str(uuid.uuid4()), "welcome", 1)

    assert await snapshot(stories) == before


async def test_add_phrases_counts_on_the_story_of_its_own_account_only(
    stories: StoryStore,
) -> None:
    ids = await seed(stories)
    story = await stories.get(ACCOUNTS[2], ids[ACCOUNTS[2], 1])
    assert story is not None
    before = await snapshot(stories)

    await stories.add_phrases(dataclasses.replace(story, account_id=ACCOUNTS[0]), 5)
    assert await snapshot(stories) == before
    await stories.add_phrases(story, 4)
    await stories.add_phrases(story, -2)

    after = await snapshot(stories)
    assert changed(before, after) == {story.id}
    counted = await stories.get(ACCOUNTS[2], story.id)
    assert counted is not None
    assert (counted.phrases, counted.revision) == (1 + 4 - 2, story.revision)


async def test_a_story_stored_without_a_counter_counts_nothing_until_one_is_set(
    stories: StoryStore,
) -> None:
    ids = await seed(stories)
    target = ids[ACCOUNTS[1], 2]
    await forget_the_counter(stories, target)
    story = await stories.get(ACCOUNTS[1], target)
    assert story is not None and story.phrases is None
    before = await snapshot(stories)

    await stories.add_phrases(story, 3)
    assert await stories.add_interaction(story, str(uuid.uuid4()), None, 2)
    uncounted = await stories.get(ACCOUNTS[1], target)
    assert uncounted is not None and uncounted.phrases is None
    assert changed(before, await snapshot(stories)) == {target}

    assert not await stories.set_phrases(story, 9)  # read before the add
    assert not await stories.set_phrases(dataclasses.replace(uncounted, account_id=ACCOUNTS[0]), 9)
    assert await stories.set_phrases(uncounted, 9)
    counted = await stories.get(ACCOUNTS[1], target)
    assert counted is not None
    assert (counted.phrases, counted.revision) == (9, uncounted.revision + 1)
    assert not await stories.set_phrases(dataclasses.replace(counted, phrases=8), 1)
    assert await stories.set_phrases(counted, 1)
    assert changed(before, await snapshot(stories)) == {target}
