"""Per-account quotas: the write that would pass one answers 409 naming it and stores
nothing; other accounts are not counted (issue 9, finding 3)."""

from typing import Any

import pytest

from bot_api.changes import StoryCreated
from bot_api.domain.interactions import default_interactions
from bot_api.entities.service import EntityService
from bot_api.interactions.service import InteractionService
from bot_api.quotas import QuotaExceeded, Quotas
from bot_api.stories.service import StoryService
from support.bodies import entity as entity_body
from support.bodies import interaction_changes, new_interaction
from support.changes import Announced
from support.memory import Database

ACCOUNT = "account-1"
OTHER_ACCOUNT = "account-2"
STORY = {"name": "Pizza", "description": ""}
WELCOME_PHRASES = len(default_interactions()[0].user_says)
"""A new story's welcome answers greetings: its phrases count too."""


@pytest.fixture
def quotas() -> Quotas:
    return Quotas(
        stories=2,
        interactions_per_story=4,
        phrases_per_story=WELCOME_PHRASES + 5,
        entities=2,
        entries=3,
    )


def entity(name: str, entries: int) -> dict[str, Any]:
    values = [
        {"value": f"{name}{n}", "synonyms": [{"value": f"{name}{n}"}]} for n in range(entries)
    ]
    return {"name": name, "entries": values}


def writes(database: Database) -> list[str]:
    reads = (".get", ".list", ".find", ".count", ".totals", ".count_phrases", ".existing_names")
    return [o for o in database.operations() if not o.endswith(reads)]


async def test_an_account_holds_at_most_its_quota_of_stories(
    stories: StoryService, database: Database
) -> None:
    await stories.create(account_id=OTHER_ACCOUNT, **STORY)
    for _ in range(2):
        await stories.create(account_id=ACCOUNT, **STORY)
    database.journal.clear()

    with pytest.raises(QuotaExceeded) as refused:
        await stories.create(account_id=ACCOUNT, **STORY)

    assert refused.value.status == 409
    assert refused.value.errors == {"quota": "stories", "limit": 2}
    assert writes(database) == []


async def test_a_create_that_raced_another_past_the_quota_takes_its_story_back(
    stories: StoryService, database: Database, announced: Announced
) -> None:
    """Another replica's create lands between this one's check and its write: both
    passed the check, and the one whose write took the account past its quota is
    refused, its interactions deleted, nothing announced."""
    await stories.create(account_id=ACCOUNT, **STORY)
    raced: list[str] = []

    async def another_create() -> None:
        raced.append(await stories.create(account_id=ACCOUNT, **STORY))

    database.meanwhile("stories.insert", another_create)
    with pytest.raises(QuotaExceeded) as refused:
        await stories.create(account_id=ACCOUNT, **STORY)

    assert refused.value.errors == {"quota": "stories", "limit": 2}
    kept = set(database.stories.records)
    assert len(kept) == 2 and raced[0] in kept
    assert {i.story_id for i in database.interactions.records.values()} == kept
    assert [type(change) for change in announced] == [StoryCreated, StoryCreated]


async def test_a_story_holds_at_most_its_quota_of_interactions(
    stories: StoryService, interactions: InteractionService, database: Database
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **STORY)
    for name in ("a", "b"):
        await interactions.create(
            account_id=ACCOUNT, story_id=story_id, interaction=new_interaction({"name": name})
        )
    database.journal.clear()

    with pytest.raises(QuotaExceeded) as refused:
        await interactions.create(
            account_id=ACCOUNT, story_id=story_id, interaction=new_interaction({"name": "c"})
        )

    assert refused.value.errors == {"quota": "interactionsPerStory", "limit": 4}
    assert writes(database) == []


async def test_a_story_holds_at_most_its_quota_of_phrases_by_create_or_update(
    stories: StoryService, interactions: InteractionService, database: Database
) -> None:
    story_id = await stories.create(account_id=ACCOUNT, **STORY)
    greet = await interactions.create(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction=new_interaction({"name": "a", "userSays": ["hi", "hello"]}),
    )
    await interactions.create(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction=new_interaction({"name": "b", "userSays": ["x", "y", "z"]}),
    )
    database.journal.clear()

    with pytest.raises(QuotaExceeded) as refused:
        await interactions.update(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction_id=greet,
            changes=interaction_changes({"userSays": ["hi", "hello", "hey"]}),
        )
    with pytest.raises(QuotaExceeded):
        await interactions.create(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction=new_interaction({"name": "c", "userSays": ["more"]}),
        )

    assert refused.value.errors == {"quota": "phrasesPerStory", "limit": WELCOME_PHRASES + 5}
    assert writes(database) == []
    await interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=greet,
        changes=interaction_changes({"userSays": ["yo"]}),
    )


async def test_an_account_holds_at_most_its_quota_of_entities_and_entries(
    entities: EntityService, database: Database
) -> None:
    await entities.create(account_id=OTHER_ACCOUNT, entity=entity_body(entity("size", 3)))
    size = await entities.create(account_id=ACCOUNT, entity=entity_body(entity("size", 1)))
    await entities.create(account_id=ACCOUNT, entity=entity_body(entity("crust", 1)))
    database.journal.clear()

    with pytest.raises(QuotaExceeded) as too_many_entities:
        await entities.create(account_id=ACCOUNT, entity=entity_body(entity("city", 1)))
    with pytest.raises(QuotaExceeded) as too_many_entries:
        await entities.update(
            account_id=ACCOUNT, entity_id=size, entity=entity_body(entity("size", 3))
        )

    assert too_many_entities.value.errors == {"quota": "entities", "limit": 2}
    assert too_many_entries.value.errors == {"quota": "entries", "limit": 3}
    assert writes(database) == []
    await entities.update(account_id=ACCOUNT, entity_id=size, entity=entity_body(entity("size", 2)))
