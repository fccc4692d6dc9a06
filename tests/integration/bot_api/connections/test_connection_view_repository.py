"""ConnectionViewRepository on the embedded MongoDB and its in-memory twin, held to one
contract: three accounts, two stories each, two connections per story, all on the same
URL; an event changes exactly its connection, and a webhook finds the connection of its
own account and story only."""

import dataclasses
from collections.abc import AsyncIterator

import pytest
from pymongo import AsyncMongoClient

from bot_api.connections.repository import ConnectionView, ConnectionViewRepository
from integration.bot_api.connections.memory import ConnectionsInMemory
from shared.config import Config
from shared.events import ConnectionChanged
from shared.ids import new_object_id
from support.documents import ACCOUNTS, Documents, changed, contents
from support.memory import Database

STORIES = ("a" * 24, "b" * 24)
URL = "https://hooks.example/orders"

Events = dict[tuple[str, str, int], ConnectionChanged]


@pytest.fixture(params=["mongodb", "memory"])
async def view(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[ConnectionView]:
    store: ConnectionView
    if request.param == "mongodb":
        store = ConnectionViewRepository(mongo_client[config.bot_database])
    else:
        store = Database().connections
    await store.ensure_indexes()
    yield store


async def seed(view: ConnectionView) -> Events:
    """(account, story, n) -> the event (revision 1) that created the connection."""
    events = {}
    for account in ACCOUNTS:
        for story in STORIES:
            for n in range(2):
                event = ConnectionChanged(new_object_id(), account, story, f"Hook {n}", URL, 1)
                await view.apply(event)
                events[account, story, n] = event
    return events


async def snapshot(view: ConnectionView) -> Documents:
    if isinstance(view, ConnectionViewRepository):
        return await contents(view.collection)
    assert isinstance(view, ConnectionsInMemory)
    return dict(view.events)


async def test_apply_of_a_new_connection_adds_it(view: ConnectionView) -> None:
    await seed(view)
    before = await snapshot(view)

    event = ConnectionChanged(new_object_id(), ACCOUNTS[1], STORIES[0], "New", URL, 1, token="t")
    await view.apply(event)

    after = await snapshot(view)
    assert changed(before, after) == {event.connection_id}
    found = await view.for_webhook(ACCOUNTS[1], STORIES[0], event.connection_id)
    assert found is not None and (found.name, found.token) == ("New", "t")


async def test_apply_of_a_newer_revision_changes_that_connection_only(
    view: ConnectionView,
) -> None:
    events = await seed(view)
    before = await snapshot(view)

    newer = dataclasses.replace(events[ACCOUNTS[2], STORIES[1], 0], url="https://n", revision=2)
    await view.apply(newer)

    after = await snapshot(view)
    assert changed(before, after) == {newer.connection_id}
    found = await view.for_webhook(ACCOUNTS[2], STORIES[1], "https://n")
    assert found is not None and found.id == newer.connection_id


async def test_apply_of_the_same_or_an_older_revision_changes_nothing(
    view: ConnectionView,
) -> None:
    events = await seed(view)
    target = events[ACCOUNTS[0], STORIES[0], 1]
    await view.apply(dataclasses.replace(target, name="Second", revision=2))
    before = await snapshot(view)

    await view.apply(dataclasses.replace(target, name="Again", revision=2))
    await view.apply(dataclasses.replace(target, name="Late", revision=1))
    await view.apply(dataclasses.replace(target, deleted=True, revision=1))

    assert await snapshot(view) == before


async def test_for_webhook_by_id_finds_the_connection_of_that_account_and_story_only(
    view: ConnectionView,
) -> None:
    events = await seed(view)
    for (account, story, _), event in events.items():
        found = await view.for_webhook(account, story, event.connection_id)
        assert found is not None and found.id == event.connection_id
        for other_account in ACCOUNTS:
            for other_story in STORIES:
                if (other_account, other_story) != (account, story):
                    assert await view.for_webhook(other_account, other_story, found.id) is None


async def test_for_webhook_by_url_finds_a_connection_of_that_account_and_story(
    view: ConnectionView,
) -> None:
    events = await seed(view)
    for account in ACCOUNTS:
        for story in STORIES:
            found = await view.for_webhook(account, story, URL)
            assert found is not None
            assert found.id in {events[account, story, n].connection_id for n in range(2)}
    assert await view.for_webhook(ACCOUNTS[0], STORIES[0], URL + "/other") is None


async def test_a_deleted_connection_stays_as_a_tombstone_no_webhook_finds(
    view: ConnectionView,
) -> None:
    events = await seed(view)
    gone = events[ACCOUNTS[1], STORIES[1], 0]
    before = await snapshot(view)

    await view.apply(dataclasses.replace(gone, deleted=True, revision=2))
    await view.apply(dataclasses.replace(gone, revision=1))

    after = await snapshot(view)
    assert changed(before, after) == {gone.connection_id} and gone.connection_id in after
    assert await view.for_webhook(ACCOUNTS[1], STORIES[1], gone.connection_id) is None
    kept = await view.for_webhook(ACCOUNTS[1], STORIES[1], URL)
    assert kept is not None and kept.id == events[ACCOUNTS[1], STORIES[1], 1].connection_id


async def test_names_are_those_of_the_story_s_own_live_connections(view: ConnectionView) -> None:
    events = await seed(view)
    mine = events[ACCOUNTS[0], STORIES[0], 0]
    other_story = events[ACCOUNTS[0], STORIES[1], 1]
    other_account = events[ACCOUNTS[1], STORIES[0], 1]
    gone = events[ACCOUNTS[0], STORIES[0], 1]
    await view.apply(dataclasses.replace(gone, deleted=True, revision=2))
    asked = [e.connection_id for e in (mine, other_story, other_account, gone)]

    assert await view.names(ACCOUNTS[0], STORIES[0], asked) == {mine.connection_id: "Hook 0"}
    assert await view.names(ACCOUNTS[0], STORIES[1], asked) == {other_story.connection_id: "Hook 1"}
    assert await view.names(ACCOUNTS[2], STORIES[0], asked) == {}


async def test_delete_for_story_removes_that_story_s_connections_tombstones_included(
    view: ConnectionView,
) -> None:
    events = await seed(view)
    gone = events[ACCOUNTS[1], STORIES[0], 0]
    await view.apply(dataclasses.replace(gone, deleted=True, revision=2))
    before = await snapshot(view)

    await view.delete_for_story(ACCOUNTS[1], STORIES[0])

    after = await snapshot(view)
    doomed = {events[ACCOUNTS[1], STORIES[0], n].connection_id for n in range(2)}
    assert changed(before, after) == doomed and not doomed & after.keys()
    assert await view.for_webhook(ACCOUNTS[1], STORIES[1], URL) is not None
