"""ConnectionRepository against the embedded MongoDB: three accounts, two stories each,
two connections per story; every call reads or changes exactly the documents it names."""

from typing import Any

import pytest
from pymongo import AsyncMongoClient

from integrations_api.connections.repository import ConnectionRepository
from shared.config import Config
from shared.pages import Page
from support.documents import ACCOUNTS, Documents, changed, contents

STORIES = ("a" * 24, "b" * 24)


@pytest.fixture
async def connections(mongo_client: AsyncMongoClient, config: Config) -> ConnectionRepository:
    repository = ConnectionRepository(mongo_client[config.integrations_database])
    await repository.ensure_indexes()
    return repository


async def seed(connections: ConnectionRepository) -> dict[tuple[str, str, int], str]:
    """Two connections on each story of each account, all on the same URL: (account,
    story, n) -> connection id."""
    ids = {}
    for account in ACCOUNTS:
        for story in STORIES:
            for n in range(2):
                fields = {"storyId": story, "name": f"Hook {n}", "url": "https://h.example/x"}
                document = await connections.insert(account, f"Story {story[0]}", fields)
                ids[account, story, n] = str(document["_id"])
    return ids


async def snapshot(connections: ConnectionRepository) -> Documents:
    return await contents(connections.collection)


async def test_insert_adds_one_document_with_the_optional_fields_given(
    connections: ConnectionRepository,
) -> None:
    await seed(connections)
    before = await snapshot(connections)

    fields = {"storyId": STORIES[0], "name": "New", "url": "https://n.example", "token": "t"}
    document = await connections.insert(ACCOUNTS[1], "Story a", fields)

    after = await snapshot(connections)
    assert changed(before, after) == {str(document["_id"])}
    stored = after[document["_id"]]
    assert (stored["accountId"], stored["storyId"], stored["token"]) == (
        ACCOUNTS[1],
        STORIES[0],
        "t",
    )
    assert (stored["error"], stored["revision"]) == (None, 1)
    assert "headers" not in stored


async def test_list_returns_the_account_s_connections_oldest_first(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    for account in ACCOUNTS:
        listed = [str(d["_id"]) for d in await connections.list(account, Page())]
        assert listed == [i for (a, _, _), i in ids.items() if a == account]


async def test_get_finds_a_connection_only_through_its_own_account(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    for (account, story, n), connection_id in ids.items():
        found = await connections.get(account, connection_id)
        assert found is not None
        assert (found["accountId"], found["storyId"], found["name"]) == (
            account,
            story,
            f"Hook {n}",
        )
        for other in ACCOUNTS:
            if other != account:
                assert await connections.get(other, connection_id) is None
    assert await connections.get(ACCOUNTS[0], "not-an-id") is None


async def test_replace_rewrites_one_connection_keeping_fields_left_out_and_dropping_nulls(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    target = ids[ACCOUNTS[1], STORIES[1], 0]
    await connections.replace(
        ACCOUNTS[1], target, {"name": "T", "url": "https://t.example", "token": "secret"}
    )
    before = await snapshot(connections)

    replaced = await connections.replace(
        ACCOUNTS[1], target, {"name": "Renamed", "url": "https://r.example"}
    )

    after = await snapshot(connections)
    assert replaced is not None
    assert changed(before, after) == {str(replaced["_id"])}
    stored = after[replaced["_id"]]
    assert (stored["name"], stored["url"], stored["revision"], stored["token"]) == (
        "Renamed",
        "https://r.example",
        3,
        "secret",
    )

    await connections.replace(
        ACCOUNTS[1], target, {"name": "Renamed", "url": "https://r.example", "token": None}
    )
    assert "token" not in (await snapshot(connections))[replaced["_id"]]


async def test_replace_through_another_account_changes_nothing(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    before = await snapshot(connections)

    fields = {"name": "Stolen", "url": "https://evil.example"}
    assert await connections.replace(ACCOUNTS[0], ids[ACCOUNTS[2], STORIES[0], 1], fields) is None

    assert await snapshot(connections) == before


async def test_used_by_story_looks_at_the_account_s_own_connections(
    connections: ConnectionRepository,
) -> None:
    await seed(connections)
    other_story = "c" * 24
    await connections.insert(ACCOUNTS[2], "C", {"storyId": other_story, "name": "C", "url": "u"})

    assert await connections.used_by_story(ACCOUNTS[0], STORIES[1])
    assert await connections.used_by_story(ACCOUNTS[2], other_story)
    assert not await connections.used_by_story(ACCOUNTS[0], other_story)
    assert not await connections.used_by_story(ACCOUNTS[1], other_story)


async def test_rename_story_renames_it_on_that_story_s_connections_only(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    before = await snapshot(connections)

    await connections.rename_story(ACCOUNTS[1], STORIES[0], "Pizza")

    after = await snapshot(connections)
    renamed = {before_key for before_key in before if after[before_key]["storyName"] == "Pizza"}
    expected = {ids[ACCOUNTS[1], STORIES[0], n] for n in range(2)}
    assert changed(before, after) == expected
    assert {str(k) for k in renamed} == expected


async def test_delete_for_story_deletes_that_story_s_connections_only(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    before = await snapshot(connections)

    await connections.delete_for_story(ACCOUNTS[2], STORIES[1])

    after = await snapshot(connections)
    assert changed(before, after) == {ids[ACCOUNTS[2], STORIES[1], n] for n in range(2)}
    assert len(after) == len(before) - 2


async def test_delete_deletes_one_connection_of_its_own_account(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    target = ids[ACCOUNTS[0], STORIES[1], 1]
    before = await snapshot(connections)

    assert await connections.delete(ACCOUNTS[1], target) is None
    assert await snapshot(connections) == before

    deleted = await connections.delete(ACCOUNTS[0], target)
    assert deleted is not None
    after = await snapshot(connections)
    assert changed(before, after) == {str(deleted["_id"])}
    assert deleted["_id"] not in after


def errors(documents: Documents) -> dict[str, Any]:
    return {str(k): d["error"] for k, d in documents.items()}


async def test_record_delivery_sets_the_error_of_that_connection_only(
    connections: ConnectionRepository,
) -> None:
    """Two connections of one story and the same story of every account: each result
    lands on the connection it names, never on a neighbour or another account's."""
    ids = await seed(connections)
    before = await snapshot(connections)

    await connections.record_delivery(ACCOUNTS[1], ids[ACCOUNTS[1], STORIES[0], 1], "HTTP 500", 10)
    await connections.record_delivery(ACCOUNTS[1], ids[ACCOUNTS[1], STORIES[0], 0], None, 11)
    await connections.record_delivery(ACCOUNTS[2], ids[ACCOUNTS[2], STORIES[0], 0], "HTTP 502", 12)

    after = await snapshot(connections)
    assert errors(after) == {
        **errors(before),
        ids[ACCOUNTS[1], STORIES[0], 1]: "HTTP 500",
        ids[ACCOUNTS[2], STORIES[0], 0]: "HTTP 502",
    }
    assert changed(before, after) == {
        ids[ACCOUNTS[1], STORIES[0], 1],
        ids[ACCOUNTS[1], STORIES[0], 0],
        ids[ACCOUNTS[2], STORIES[0], 0],
    }


async def test_record_delivery_keeps_the_result_of_a_later_delivery(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    target = ids[ACCOUNTS[0], STORIES[1], 0]
    await connections.record_delivery(ACCOUNTS[0], target, "HTTP 500", 2_000)
    before = await snapshot(connections)

    await connections.record_delivery(ACCOUNTS[0], target, None, 1_999)
    await connections.record_delivery(ACCOUNTS[0], target, None, 2_000)
    assert await snapshot(connections) == before

    await connections.record_delivery(ACCOUNTS[0], target, None, 2_001)
    after = await snapshot(connections)
    assert changed(before, after) == {target}
    assert errors(after)[target] is None


async def test_record_delivery_through_another_account_changes_nothing(
    connections: ConnectionRepository,
) -> None:
    ids = await seed(connections)
    before = await snapshot(connections)

    await connections.record_delivery(ACCOUNTS[2], ids[ACCOUNTS[0], STORIES[0], 0], "HTTP 500", 5)
    await connections.record_delivery(ACCOUNTS[2], "not-an-id", "HTTP 500", 5)

    assert await snapshot(connections) == before
