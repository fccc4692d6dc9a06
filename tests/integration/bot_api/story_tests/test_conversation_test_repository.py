"""ConversationTestRepository on the embedded MongoDB and its in-memory twin, held to one
contract: two accounts with two stories each and several tests in every story; every call
reads or changes exactly the tests of the account and story it names, and a story's last
run is kept whole, one per story."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from pymongo import AsyncMongoClient

from bot_api.domain.conversation_tests import (
    ConversationTest,
    Difference,
    Expectation,
    ScriptedTurn,
    TestResult,
    TestRun,
)
from bot_api.story_tests.repository import ConversationTestRepository, ConversationTestStore
from integration.bot_api.story_tests.memory import ConversationTestsInMemory
from shared.config import Config
from shared.ids import new_object_id

ACCOUNTS = ("a" * 24, "b" * 24)
RAN_AT = datetime(2026, 3, 1, 12, 30, 15, 123000, tzinfo=UTC)
"""Milliseconds: what MongoDB keeps of a time."""


def conversation(name: str) -> ConversationTest:
    return ConversationTest(
        name,
        (
            ScriptedTurn(
                Expectation("Order", parameters={"size": "large"}, incomplete=False),
                query=f"{name}: a big pizza",
            ),
            ScriptedTurn(
                Expectation(fallback=False, contexts=("Order",), text="Cola?", text_contains="Co"),
                trigger="drinks",
                parameters={"count": 2, "cold": True, "note": None},
            ),
            ScriptedTurn(
                Expectation("Order", answered_in="de"),
                query=f"{name}: eine große Pizza",
                parameters={"size": "large"},
                language="de",
            ),
        ),
    )


@pytest.fixture(params=["mongodb", "memory"])
async def store(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[ConversationTestStore]:
    if request.param == "memory":
        yield ConversationTestsInMemory()
        return
    repository = ConversationTestRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    yield repository


async def seed(store: ConversationTestStore) -> dict[tuple[str, str], list[str]]:
    """(account, story) -> its tests' ids, made in turns across the stories."""
    stories = {(account, new_object_id()): [] for account in ACCOUNTS for _ in range(2)}
    ids: dict[tuple[str, str], list[str]] = {key: [] for key in stories}
    for n in range(3):
        for account, story_id in stories:
            test_id = await store.insert(account, story_id, conversation(f"t{n}"))
            ids[account, story_id].append(test_id)
    return ids


async def test_a_story_lists_its_own_tests_in_the_order_they_were_made(
    store: ConversationTestStore,
) -> None:
    ids = await seed(store)
    for (account, story_id), made in ids.items():
        listed = await store.list(account, story_id)
        assert [s.id for s in listed] == made
        assert [s.test for s in listed] == [conversation(f"t{n}") for n in range(3)]
        assert await store.count(account, story_id) == 3
        other = ACCOUNTS[1] if account == ACCOUNTS[0] else ACCOUNTS[0]
        assert await store.list(other, story_id) == []
        assert await store.count(other, story_id) == 0


async def test_get_replace_and_delete_reach_only_the_named_story_s_test(
    store: ConversationTestStore,
) -> None:
    ids = await seed(store)
    (account, story_id), made = next(iter(ids.items()))
    other_story = next(key for key in ids if key[0] == account and key[1] != story_id)[1]
    target = made[1]
    stored = await store.get(account, story_id, target)
    assert stored is not None and stored.test == conversation("t1")
    assert await store.get(account, story_id, target.upper()) == stored
    for wrong in ((ACCOUNTS[1], story_id), (account, other_story)):
        assert await store.get(*wrong, target) is None
        assert not await store.replace(*wrong, target, conversation("x"))
        assert not await store.delete(*wrong, target)
    assert await store.get(account, story_id, "not-an-id") is None
    assert not await store.delete(account, story_id, "not-an-id")

    assert await store.replace(account, story_id, target, conversation("renamed"))
    assert [s.test.name for s in await store.list(account, story_id)] == ["t0", "renamed", "t2"]
    assert await store.delete(account, story_id, target)
    assert [s.id for s in await store.list(account, story_id)] == [made[0], made[2]]
    for key, others in ids.items():
        if key != (account, story_id):
            assert [s.id for s in await store.list(*key)] == others


async def test_insert_many_keeps_the_given_order(store: ConversationTestStore) -> None:
    story_id = new_object_id()
    await store.insert_many(ACCOUNTS[0], story_id, [conversation(n) for n in "cab"])
    await store.insert_many(ACCOUNTS[0], story_id, [])
    assert [s.test.name for s in await store.list(ACCOUNTS[0], story_id)] == ["c", "a", "b"]


async def test_the_last_run_is_kept_whole_one_per_story(store: ConversationTestStore) -> None:
    stories = [new_object_id(), new_object_id()]
    first = TestRun((TestResult("t1", "one", True),), 1, RAN_AT)
    failing = TestResult(
        "t2",
        "two",
        False,
        turn=1,
        difference=Difference("parameters", {"size": "large"}, {}),
        broken=True,
    )
    second = TestRun((TestResult("t1", "one", True), failing), 3, RAN_AT)
    assert await store.last_run(ACCOUNTS[0], stories[0]) is None
    await store.save_run(ACCOUNTS[0], stories[0], first)
    await store.save_run(ACCOUNTS[0], stories[1], first)
    await store.save_run(ACCOUNTS[0], stories[0], second)
    assert await store.last_run(ACCOUNTS[0], stories[0]) == second
    assert await store.last_run(ACCOUNTS[0], stories[1]) == first
    assert await store.last_run(ACCOUNTS[1], stories[0]) is None


async def test_deleting_a_story_s_tests_leaves_the_others(store: ConversationTestStore) -> None:
    ids = await seed(store)
    (account, story_id), _ = next(iter(ids.items()))
    run = TestRun((), 0, RAN_AT)
    for key in ids:
        await store.save_run(*key, run)
    await store.delete_for_story(story_id)
    assert await store.list(account, story_id) == []
    assert await store.last_run(account, story_id) is None
    for key, made in ids.items():
        if key != (account, story_id):
            assert [s.id for s in await store.list(*key)] == made
            assert await store.last_run(*key) == run
