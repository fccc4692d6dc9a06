"""Interactions: a reader never sees a story listing a missing interaction, structure
edits survive concurrent writers, and each write announces what it changed."""

from typing import Any

import pytest
from marshmallow import ValidationError

from bot_api.changes import StoryEdited
from bot_api.domain.errors import Clash, Invalid, Unknown
from bot_api.domain.structure import ContextChange
from bot_api.interactions.service import InteractionService
from bot_api.stories.service import MAX_CONCURRENT_RETRIES, StoryService
from integration.bot_api.connections.memory import ConnectionDirectory
from shared.errors import Conflict, ValidationFailed
from support.bodies import interaction_changes, new_interaction
from support.changes import Announced
from support.journal import Action
from support.memory import Database

ACCOUNT = "account-1"


def greeting(**fields: Any) -> dict[str, Any]:
    return {"name": "Greet", "userSays": ["hello there"], **fields}


@pytest.fixture
async def story_id(stories: StoryService, database: Database, announced: Announced) -> str:
    story_id = await stories.create(account_id=ACCOUNT, name="Bot", description="")
    announced.clear()
    database.journal.clear()
    return story_id


def another_writer_adds_a_root(database: Database, story_id: str) -> Action:
    async def act() -> None:
        current = database.stories.records[story_id].structure
        database.stories.bump(story_id, current.add_root("theirs"))

    return act


def another_writer(database: Database, story_id: str) -> Action:
    async def act() -> None:
        database.stories.bump(story_id)

    return act


async def test_a_create_writes_the_document_before_the_structure_lists_it(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    new_id = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )

    writes = [c for c in database.journal if c[0].endswith(("insert_many", "add_interaction"))]
    assert writes == [
        ("interactions.insert_many", story_id, (new_id,)),
        ("stories.add_interaction", story_id, new_id),
    ]
    assert new_id in database.stories.records[story_id].structure
    assert announced == [StoryEdited(ACCOUNT, story_id, frozenset({new_id}))]


async def test_a_failed_structure_write_removes_the_document_it_inserted(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    before = set(database.interactions.records)
    database.meanwhile(
        "stories.add_interaction",
        another_writer(database, story_id),
        times=MAX_CONCURRENT_RETRIES,
    )

    with pytest.raises(Conflict):
        await interactions.create(
            account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
        )

    assert set(database.interactions.records) == before
    assert database.operations()[-1] == "interactions.delete_many"
    assert announced == []


async def test_a_child_whose_parent_was_deleted_meanwhile_leaves_no_document(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    parent_id = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )
    before = set(database.interactions.records)
    announced.clear()

    async def another_writer_deletes_the_parent() -> None:
        current = database.stories.records[story_id].structure
        database.stories.bump(story_id, current.remove([parent_id])[0])

    database.meanwhile("stories.add_interaction", another_writer_deletes_the_parent)
    with pytest.raises(Unknown):
        await interactions.create(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction=new_interaction(greeting(name="Child")),
            parent_id=parent_id,
        )

    assert set(database.interactions.records) == before
    assert announced == []


async def test_a_create_lands_on_top_of_a_concurrent_structural_change(
    interactions: InteractionService, database: Database, story_id: str
) -> None:
    database.meanwhile("stories.add_interaction", another_writer_adds_a_root(database, story_id))

    new_id = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )

    order = database.stories.records[story_id].structure.order
    assert order[-2:] == ("theirs", new_id)


async def test_a_trigger_another_interaction_starts_is_a_conflict(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    await interactions.create(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction=new_interaction(greeting(triggers=["hi"])),
    )
    announced.clear()
    before = set(database.interactions.records)

    with pytest.raises(Clash, match="'hi'"):
        await interactions.create(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction=new_interaction(greeting(name="Other", triggers=["HI"])),
        )

    assert set(database.interactions.records) == before
    assert announced == []


async def test_a_parameter_of_an_unknown_entity_is_refused_before_any_write(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    data = greeting(userSays=["a {{size:size}} pizza"])

    with pytest.raises(ValidationFailed, match="'size'"):
        await interactions.create(
            account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(data)
        )

    assert "interactions.insert_many" not in database.operations()
    assert announced == []


async def test_a_webhook_may_name_only_a_connection_of_the_story(
    interactions: InteractionService,
    connections: ConnectionDirectory,
    database: Database,
    story_id: str,
) -> None:
    ours, theirs = "a" * 24, "b" * 24
    connections.known |= {(ACCOUNT, story_id, ours), (ACCOUNT, "another-story", theirs)}

    with pytest.raises(ValidationFailed, match=theirs):
        await interactions.create(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction=new_interaction(greeting(webhook=theirs)),
        )
    assert "interactions.insert_many" not in database.operations()

    created = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting(webhook=ours))
    )
    connections.known.clear()  # the connection is deleted: the stored webhook still stands
    await interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=created,
        changes=interaction_changes({"name": "Hi"}),
    )


async def test_a_content_update_announces_the_interaction_it_changed(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    new_id = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )
    announced.clear()

    await interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=new_id,
        changes=interaction_changes({"userSays": ["hey"]}),
    )

    stored = database.interactions.records[new_id].interaction
    assert (stored.name, stored.user_says) == ("Greet", ("hey",))
    assert announced == [StoryEdited(ACCOUNT, story_id, frozenset({new_id}))]


async def test_a_context_update_announces_a_structure_change(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    first = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )
    second = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting(name="Bye"))
    )
    announced.clear()

    await interactions.update_contexts(
        account_id=ACCOUNT,
        story_id=story_id,
        changes=[ContextChange(first, True, (second,), (second,))],
    )

    assert database.stories.records[story_id].structure.contexts[first].references == (second,)
    assert announced == [StoryEdited(ACCOUNT, story_id)]


async def test_a_delete_writes_the_structure_before_removing_the_subtree_documents(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    parent = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )
    child = await interactions.create(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction=new_interaction(greeting(name="Child")),
        parent_id=parent,
    )
    announced.clear()
    database.journal.clear()

    await interactions.delete(account_id=ACCOUNT, story_id=story_id, interaction_ids=[parent])

    writes = [
        c for c in database.journal if c[0] not in ("stories.get", "interactions.count_phrases")
    ]
    assert writes == [
        ("stories.update", story_id),
        ("interactions.delete_many", story_id, tuple(sorted([parent, child]))),
    ]
    assert parent not in database.interactions.records
    assert child not in database.interactions.records
    assert announced == [StoryEdited(ACCOUNT, story_id)]


async def test_a_delete_keeps_what_a_concurrent_writer_added(
    interactions: InteractionService, database: Database, story_id: str
) -> None:
    doomed = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )
    database.meanwhile("stories.update", another_writer_adds_a_root(database, story_id))

    await interactions.delete(account_id=ACCOUNT, story_id=story_id, interaction_ids=[doomed])

    structure = database.stories.records[story_id].structure
    assert "theirs" in structure
    assert doomed not in structure


async def test_a_delete_that_loses_to_too_many_writers_keeps_every_document(
    interactions: InteractionService, database: Database, announced: Announced, story_id: str
) -> None:
    doomed = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(greeting())
    )
    announced.clear()
    database.meanwhile(
        "stories.update",
        another_writer(database, story_id),
        times=MAX_CONCURRENT_RETRIES,
    )

    with pytest.raises(Conflict):
        await interactions.delete(account_id=ACCOUNT, story_id=story_id, interaction_ids=[doomed])

    assert doomed in database.interactions.records
    assert "interactions.delete_many" not in database.operations()
    assert announced == []


async def test_a_handoff_names_a_connection_of_the_story_and_comes_once(
    interactions: InteractionService,
    connections: ConnectionDirectory,
    database: Database,
    story_id: str,
) -> None:
    ours, theirs = "a" * 24, "b" * 24
    connections.known |= {(ACCOUNT, story_id, ours), (ACCOUNT, "another-story", theirs)}
    text = {"type": "text", "messages": ["A person will answer"]}

    def handing_to(*connections: str) -> dict[str, Any]:
        blocks = [{"type": "handoff", "connection": c} for c in connections]
        return greeting(responses=[text, *blocks])

    with pytest.raises(ValidationFailed, match=rf"responses\[1\]\.connection: .*{theirs}"):
        await interactions.create(
            account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(handing_to(theirs))
        )
    with pytest.raises(Invalid, match="at most one handoff block") as refused:
        await interactions.create(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction=new_interaction(handing_to(ours, ours)),
        )
    assert refused.value.path == ("responses", 2)
    with pytest.raises(ValidationError, match="connection"):
        new_interaction(greeting(responses=[{"type": "handoff", "connection": "not-an-id"}]))
    assert "interactions.insert_many" not in database.operations()

    created = await interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(handing_to(ours))
    )
    stored = await interactions.read(account_id=ACCOUNT, story_id=story_id, interaction_id=created)
    assert [type(block).__name__ for block in stored.responses] == ["TextChoice", "Handoff"]
    connections.known.clear()  # the connection is deleted: the stored handoff still stands
    await interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=created,
        changes=interaction_changes({"name": "Hi"}),
    )
