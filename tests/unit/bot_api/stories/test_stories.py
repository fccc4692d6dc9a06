"""Stories: what a create, an edit and a delete write, in which order, and what they
announce; how a story edit survives concurrent writers."""

import pytest
from pymongo.errors import AutoReconnect

from bot_api.changes import StoryCreated, StoryDeleted, StoryEdited
from bot_api.domain.conversation_tests import ConversationTest
from bot_api.domain.settings import Settings
from bot_api.stories.service import MAX_CONCURRENT_RETRIES, StoryService
from integration.bot_api.story_tests.memory import ConversationTestsInMemory
from shared.audit import DEVELOPER_TOKEN, Actor
from shared.errors import Conflict, NotFound
from support.changes import Announced
from support.memory import Database

BY = Actor(DEVELOPER_TOKEN, "developer", "Developer token")

ACCOUNT = "account-1"
PIZZA = {"name": "Pizza", "description": "orders"}


async def database_unreachable() -> None:
    raise AutoReconnect("connection refused")


async def test_a_create_writes_the_interactions_before_the_story_that_lists_them(
    stories: StoryService, database: Database, announced: Announced
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **PIZZA)

    assert database.operations() == [
        "stories.count",
        "interactions.insert_many",
        "stories.insert",
        "stories.count",  # again, written: a create racing it may have passed the quota
    ]
    structure = database.stories.records[story_id].structure
    assert set(structure.contexts) == set(database.interactions.records)
    assert announced == [StoryCreated(ACCOUNT, story_id)]


async def test_a_create_whose_story_write_fails_announces_nothing(
    stories: StoryService, database: Database, announced: Announced
) -> None:
    database.meanwhile("stories.insert", database_unreachable)

    with pytest.raises(AutoReconnect):
        await stories.create(account_id=ACCOUNT, **PIZZA)

    assert database.stories.records == {}
    assert announced == []


async def test_an_edit_is_applied_again_on_top_of_a_concurrent_structural_change(
    stories: StoryService, database: Database, announced: Announced
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **PIZZA)
    announced.clear()

    async def another_writer_adds_a_root() -> None:
        current = database.stories.records[story_id].structure
        database.stories.bump(story_id, current.add_root("theirs"))

    database.meanwhile("stories.update", another_writer_adds_a_root)
    await stories.update(
        account_id=ACCOUNT,
        story_id=story_id,
        name="Pasta",
        description="now pasta",
        settings={"lifespan": 5},
        by=BY,
    )

    record = database.stories.records[story_id]
    assert (record.name, record.description) == ("Pasta", "now pasta")
    assert record.settings == Settings(lifespan=5)
    assert "theirs" in record.structure
    assert announced == [StoryEdited(ACCOUNT, story_id)]


async def test_an_edit_outlasts_one_fewer_concurrent_writers_than_the_limit(
    stories: StoryService, database: Database
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **PIZZA)

    async def another_writer() -> None:
        database.stories.bump(story_id)

    database.meanwhile("stories.update", another_writer, times=MAX_CONCURRENT_RETRIES - 1)
    await stories.update(account_id=ACCOUNT, story_id=story_id, by=BY, **PIZZA | {"name": "Pasta"})

    assert database.stories.records[story_id].name == "Pasta"


async def test_too_many_concurrent_writers_make_an_edit_a_conflict_that_announces_nothing(
    stories: StoryService, database: Database, announced: Announced
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **PIZZA)
    announced.clear()

    async def another_writer() -> None:
        database.stories.bump(story_id)

    database.meanwhile("stories.update", another_writer, times=MAX_CONCURRENT_RETRIES)
    with pytest.raises(Conflict):
        await stories.update(
            account_id=ACCOUNT, story_id=story_id, by=BY, **PIZZA | {"name": "Pasta"}
        )

    assert database.stories.records[story_id].name == "Pizza"
    assert announced == []


async def test_a_delete_removes_what_hangs_below_the_story_then_the_story(
    stories: StoryService,
    database: Database,
    announced: Announced,
    saved_tests: ConversationTestsInMemory,
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **PIZZA)
    kept_id = await stories.create(account_id=ACCOUNT, **PIZZA)
    for story in (story_id, kept_id):
        await saved_tests.insert(ACCOUNT, story, ConversationTest("hello", ()))
    announced.clear()
    database.journal.clear()

    await stories.delete(account_id=ACCOUNT, story_id=story_id)

    writes = [call for call in database.journal if call[0] != "stories.get"]
    assert writes == [
        ("sessions.delete_for_story", story_id),
        ("connections.delete_for_story", story_id),
        ("interactions.delete_for_story", story_id),
        ("stories.delete", story_id),
    ]
    assert {owned.story_id for owned in database.interactions.records.values()} == {kept_id}
    assert [test.story_id for test in saved_tests.tests.values()] == [kept_id]
    assert announced == [StoryDeleted(ACCOUNT, story_id)]


async def test_a_delete_that_fails_midway_leaves_the_story_and_deleting_again_finishes(
    stories: StoryService, database: Database, announced: Announced
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **PIZZA)
    announced.clear()

    database.meanwhile("interactions.delete_for_story", database_unreachable)
    with pytest.raises(AutoReconnect):
        await stories.delete(account_id=ACCOUNT, story_id=story_id)
    assert story_id in database.stories.records and database.interactions.records
    assert announced == []

    await stories.delete(account_id=ACCOUNT, story_id=story_id)

    assert database.stories.records == {} and database.interactions.records == {}
    assert announced == [StoryDeleted(ACCOUNT, story_id)]
    with pytest.raises(NotFound):
        await stories.delete(account_id=ACCOUNT, story_id=story_id)


async def test_another_accounts_story_can_be_neither_read_nor_deleted(
    stories: StoryService, database: Database, announced: Announced
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **PIZZA)
    announced.clear()

    with pytest.raises(NotFound):
        await stories.read(account_id="account-2", story_id=story_id)
    with pytest.raises(NotFound):
        await stories.delete(account_id="account-2", story_id=story_id)

    assert story_id in database.stories.records
    assert announced == []
