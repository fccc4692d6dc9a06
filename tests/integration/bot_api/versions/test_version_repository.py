"""VersionRepository on the embedded MongoDB and its in-memory twin, held to one contract:
three accounts with two stories each and two versions per story; every call reads or
changes exactly the versions of the story it names, through its own account only."""

import asyncio
from collections.abc import AsyncIterator

import pytest
from pymongo import AsyncMongoClient

from bot_api.versions.repository import (
    FrozenInteraction,
    VersionRepository,
    VersionStore,
    new_version,
)
from integration.bot_api.versions.memory import VersionsInMemory
from shared.audit import DEVELOPER_TOKEN, Actor
from shared.config import Config
from shared.ids import new_object_id
from shared.pages import Page
from support.documents import ACCOUNTS, Documents, changed, contents
from support.memory import Database

BY = Actor(DEVELOPER_TOKEN, "developer", "Developer token")

STORIES = ("a" * 24, "b" * 24)
DOCUMENT = {"format": "parley.story", "version": 1, "name": "Pizza", "interactions": []}
FROZEN = (
    FrozenInteraction("order.v2", "id-1", "https://hooks.example"),
    FrozenInteraction("w", "id-2"),
)


@pytest.fixture(params=["mongodb", "memory"])
async def versions(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[VersionStore]:
    store: VersionStore
    if request.param == "mongodb":
        store = VersionRepository(mongo_client[config.bot_database])
    else:
        store = Database().versions
    await store.ensure_indexes()
    yield store


async def seed(versions: VersionStore) -> dict[tuple[str, str, int], str]:
    """(account, story, number) -> the version's id, made in turns across the accounts."""
    ids = {}
    for n in (1, 2):
        for account in ACCOUNTS:
            for story in STORIES:
                made = new_version(
                    account, story, f"note {n}", {**DOCUMENT, "name": story}, FROZEN, BY
                )
                stored = await versions.add(made)
                assert stored.number == n
                ids[account, story, n] = stored.id
    return ids


async def snapshot(versions: VersionStore) -> Documents:
    if isinstance(versions, VersionRepository):
        return await contents(versions.collection)
    assert isinstance(versions, VersionsInMemory)
    return dict(versions.versions)


async def test_add_numbers_each_story_of_its_own(versions: VersionStore) -> None:
    ids = await seed(versions)
    before = await snapshot(versions)

    added = await versions.add(new_version(ACCOUNTS[1], STORIES[0], "third", DOCUMENT, FROZEN, BY))

    assert added.number == 3
    assert changed(before, await snapshot(versions)) == {added.id}
    assert added.id not in ids.values()


async def test_concurrent_adds_take_different_numbers(versions: VersionStore) -> None:
    await seed(versions)
    made = [new_version(ACCOUNTS[2], STORIES[1], str(n), DOCUMENT, FROZEN, BY) for n in range(5)]

    added = await asyncio.gather(*(versions.add(version) for version in made))

    assert sorted(v.number for v in added) == [3, 4, 5, 6, 7]


async def test_get_reads_the_whole_version_of_its_story_and_account_only(
    versions: VersionStore,
) -> None:
    ids = await seed(versions)
    version_id = ids[ACCOUNTS[0], STORIES[1], 2]

    found = await versions.get(ACCOUNTS[0], STORIES[1], version_id)

    assert found is not None
    assert (found.number, found.note, found.document["name"]) == (2, "note 2", STORIES[1])
    assert found.interactions == FROZEN
    assert found.ids() == {"order.v2": "id-1", "w": "id-2"}
    assert found.webhooks() == {"id-1": "https://hooks.example"}
    assert found.created_at.tzinfo is not None
    assert await versions.get(ACCOUNTS[1], STORIES[1], version_id) is None
    assert await versions.get(ACCOUNTS[0], STORIES[0], version_id) is None
    assert await versions.get(ACCOUNTS[0], STORIES[1], "not-an-id") is None
    assert await versions.get(ACCOUNTS[0], STORIES[1], new_object_id()) is None


async def test_list_pages_the_story_newest_first(versions: VersionStore) -> None:
    ids = await seed(versions)

    listed = await versions.list(ACCOUNTS[2], STORIES[0], Page(0, 10))
    second_page = await versions.list(ACCOUNTS[2], STORIES[0], Page(1, 1))

    assert [(v.id, v.number, v.note) for v in listed] == [
        (ids[ACCOUNTS[2], STORIES[0], 2], 2, "note 2"),
        (ids[ACCOUNTS[2], STORIES[0], 1], 1, "note 1"),
    ]
    assert [v.number for v in second_page] == [1]
    assert await versions.count(ACCOUNTS[2], STORIES[0]) == 2
    assert await versions.count(ACCOUNTS[2], new_object_id()) == 0


async def test_delete_removes_one_version_of_its_story_and_account(versions: VersionStore) -> None:
    ids = await seed(versions)
    before = await snapshot(versions)
    version_id = ids[ACCOUNTS[1], STORIES[1], 1]

    assert not await versions.delete(ACCOUNTS[0], STORIES[1], version_id)
    assert not await versions.delete(ACCOUNTS[1], STORIES[0], version_id)
    assert changed(before, await snapshot(versions)) == set()
    assert await versions.delete(ACCOUNTS[1], STORIES[1], version_id)

    assert changed(before, await snapshot(versions)) == {version_id}


async def test_delete_for_story_removes_that_story_s_versions_only(versions: VersionStore) -> None:
    ids = await seed(versions)
    before = await snapshot(versions)

    await versions.delete_for_story(ACCOUNTS[0], STORIES[0])
    await versions.delete_for_story(ACCOUNTS[1], new_object_id())

    gone = {ids[ACCOUNTS[0], STORIES[0], n] for n in (1, 2)}
    assert changed(before, await snapshot(versions)) == gone


async def test_a_version_names_who_froze_it_and_who_published_it_last(
    versions: VersionStore,
) -> None:
    ids = await seed(versions)
    before = await snapshot(versions)
    version_id = ids[ACCOUNTS[1], STORIES[0], 2]
    publisher = Actor("member", "m1", "Ada")

    await versions.mark_published(ACCOUNTS[0], STORIES[0], version_id, publisher)
    await versions.mark_published(ACCOUNTS[1], STORIES[1], version_id, publisher)
    assert changed(before, await snapshot(versions)) == set()
    await versions.mark_published(ACCOUNTS[1], STORIES[0], version_id, publisher)

    assert changed(before, await snapshot(versions)) == {version_id}
    found = await versions.get(ACCOUNTS[1], STORIES[0], version_id)
    assert found is not None
    assert (found.frozen_by, found.published_by) == (BY, publisher)
    listed = await versions.list(ACCOUNTS[1], STORIES[0], Page(0, 10))
    assert [(v.frozen_by, v.published_by) for v in listed] == [(BY, publisher), (BY, None)]
