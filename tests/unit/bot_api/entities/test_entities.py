"""Entities: names unique per account, and no interaction left naming an entity that
does not exist (no rename, no delete while one is used)."""

from dataclasses import dataclass

import pytest

from bot_api.changes import EntitiesEdited
from bot_api.domain.interactions import STANDARD, Interaction, Parameter
from bot_api.entities.service import EntityService
from bot_api.interactions.service import InteractionService
from bot_api.stories.service import StoryService
from shared.errors import Conflict
from support.bodies import entity as entity_body
from support.bodies import new_interaction
from support.changes import Announced
from support.memory import Database

ACCOUNT = "account-1"
SIZES = {"name": "size", "entries": [{"value": "small", "synonyms": [{"value": "small"}]}]}


@dataclass(frozen=True)
class InUse:
    entity_id: str
    story_id: str
    interaction_id: str


@pytest.fixture
async def size_in_use(
    entities: EntityService,
    stories: StoryService,
    interactions: InteractionService,
    announced: Announced,
) -> InUse:
    """The `size` entity, and an interaction with a parameter of it."""
    entity_id = await entities.create(account_id=ACCOUNT, entity=entity_body(SIZES))
    story_id = await stories.create(account_id=ACCOUNT, name="Bot", description="")
    interaction_id = await interactions.create(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction=new_interaction({"name": "Order", "userSays": ["a {{size:size}} pizza"]}),
    )
    announced.clear()
    return InUse(entity_id, story_id, interaction_id)


async def test_a_create_announces_the_accounts_entities_changed(
    entities: EntityService, database: Database, announced: Announced
) -> None:
    entity_id = await entities.create(account_id=ACCOUNT, entity=entity_body(SIZES))

    assert database.entities.records[entity_id].entity.name == "size"
    assert announced == [EntitiesEdited(ACCOUNT)]


async def test_a_second_entity_of_the_same_name_is_a_conflict_that_announces_nothing(
    entities: EntityService, announced: Announced
) -> None:
    await entities.create(account_id=ACCOUNT, entity=entity_body(SIZES))
    announced.clear()

    with pytest.raises(Conflict):
        await entities.create(account_id=ACCOUNT, entity=entity_body(SIZES))
    await entities.create(account_id="account-2", entity=entity_body(SIZES))

    assert announced == [EntitiesEdited("account-2")]


async def test_an_entity_in_use_cannot_be_renamed_but_its_entries_can_change(
    entities: EntityService, database: Database, announced: Announced, size_in_use: InUse
) -> None:
    entity_id = size_in_use.entity_id

    with pytest.raises(Conflict) as refused:
        await entities.update(
            account_id=ACCOUNT, entity_id=entity_id, entity=entity_body({**SIZES, "name": "sizes"})
        )
    assert refused.value.errors == {"interactions": [size_in_use.interaction_id]}
    assert announced == []

    more = {
        **SIZES,
        "entries": [*SIZES["entries"], {"value": "large", "synonyms": [{"value": "large"}]}],
    }
    await entities.update(account_id=ACCOUNT, entity_id=entity_id, entity=entity_body(more))

    assert database.entities.records[entity_id].entity == entity_body(more)
    assert announced == [EntitiesEdited(ACCOUNT)]


async def test_an_entity_in_use_cannot_be_deleted_until_its_interaction_is_gone(
    entities: EntityService,
    interactions: InteractionService,
    database: Database,
    announced: Announced,
    size_in_use: InUse,
) -> None:
    entity_id, story_id, user = (
        size_in_use.entity_id,
        size_in_use.story_id,
        size_in_use.interaction_id,
    )

    with pytest.raises(Conflict, match=user):
        await entities.delete(account_id=ACCOUNT, entity_id=entity_id)
    assert entity_id in database.entities.records
    assert announced == []

    await interactions.delete(account_id=ACCOUNT, story_id=story_id, interaction_ids=[user])
    await entities.delete(account_id=ACCOUNT, entity_id=entity_id)

    assert entity_id not in database.entities.records
    assert announced[-1] == EntitiesEdited(ACCOUNT)


async def test_a_document_no_story_lists_does_not_keep_an_entity_in_use(
    entities: EntityService, stories: StoryService, database: Database
) -> None:
    entity_id = await entities.create(account_id=ACCOUNT, entity=entity_body(SIZES))
    story_id = await stories.create(account_id=ACCOUNT, name="Bot", description="")
    left_by_a_create_cut_short = Interaction(
        id="orphan", kind=STANDARD, name="Order", parameters=(Parameter("size", "size"),)
    )
    await database.interactions.insert_many(ACCOUNT, story_id, [left_by_a_create_cut_short])

    await entities.delete(account_id=ACCOUNT, entity_id=entity_id)

    assert database.entities.records == {}
