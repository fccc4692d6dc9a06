"""InteractionRepository against the embedded MongoDB: three accounts, two stories each,
three interactions per story; every call reads or changes exactly the interactions of
the story it names."""

from typing import Any

import pytest
from pymongo import AsyncMongoClient

from bot_api.storage import new_object_id
from bot_api.storage.interactions import InteractionRepository
from shared.config import Config
from support.documents import ACCOUNTS, Documents, changed, contents

Ids = dict[tuple[str, int, int], str]


def content(name: str, entity: str | None = None) -> dict[str, Any]:
    parameters = [] if entity is None else [{"alias": entity, "entity": entity, "prompts": []}]
    return {
        "id": new_object_id(),
        "type": "standard",
        "name": name,
        "action": "",
        "triggers": [],
        "userSays": [name.lower()],
        "parameters": parameters,
        "responses": [{"type": "text", "messages": [name]}],
        "webhook": "",
    }


@pytest.fixture
async def interactions(mongo_client: AsyncMongoClient, config: Config) -> InteractionRepository:
    repository = InteractionRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    return repository


async def seed(interactions: InteractionRepository) -> tuple[Ids, dict[tuple[str, int], str]]:
    """(account, story, n) -> interaction id and (account, story) -> story id. Interaction 0
    of each story uses the entity `city`, interaction 1 uses `size`, 2 uses none."""
    ids: Ids = {}
    stories = {}
    for account in ACCOUNTS:
        for s in range(2):
            story_id = stories[account, s] = new_object_id()
            batch = [content("Order", "city"), content("Size", "size"), content("Bye")]
            await interactions.insert_many(account, story_id, batch)
            ids.update({(account, s, n): item["id"] for n, item in enumerate(batch)})
    return ids, stories


async def snapshot(interactions: InteractionRepository) -> Documents:
    return await contents(interactions.collection)


async def test_insert_many_adds_exactly_the_given_interactions(
    interactions: InteractionRepository,
) -> None:
    _, stories = await seed(interactions)
    before = await snapshot(interactions)

    batch = [content("Menu"), content("Pay")]
    await interactions.insert_many(ACCOUNTS[1], stories[ACCOUNTS[1], 0], batch)

    after = await snapshot(interactions)
    assert changed(before, after) == {item["id"] for item in batch}
    for item in batch:
        stored = after[item["id"]]
        assert (stored["accountId"], stored["storyId"]) == (ACCOUNTS[1], stories[ACCOUNTS[1], 0])
        assert {name: stored[name] for name in item if name != "id"} == {
            name: value for name, value in item.items() if name != "id"
        }


async def test_find_returns_only_the_named_interactions_of_that_story(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    wanted = [ids[ACCOUNTS[2], 1, 0], ids[ACCOUNTS[2], 1, 2]]
    elsewhere = [ids[ACCOUNTS[2], 0, 0], ids[ACCOUNTS[0], 1, 0]]

    found = await interactions.find(stories[ACCOUNTS[2], 1], [*wanted, *elsewhere])

    assert set(found) == set(wanted)
    assert all(found[i]["storyId"] == stories[ACCOUNTS[2], 1] for i in wanted)


async def test_find_reads_only_the_projected_fields(interactions: InteractionRepository) -> None:
    ids, stories = await seed(interactions)
    story_ids = [ids[ACCOUNTS[0], 0, n] for n in range(3)]

    found = await interactions.find(stories[ACCOUNTS[0], 0], story_ids, projection=["name"])

    assert found == {
        story_ids[0]: {"_id": story_ids[0], "name": "Order"},
        story_ids[1]: {"_id": story_ids[1], "name": "Size"},
        story_ids[2]: {"_id": story_ids[2], "name": "Bye"},
    }


async def test_get_finds_an_interaction_only_through_its_own_story(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    for (account, s, _), interaction_id in ids.items():
        found = await interactions.get(stories[account, s], interaction_id)
        assert found is not None and found["_id"] == interaction_id
        for other_story in stories.values():
            if other_story != stories[account, s]:
                assert await interactions.get(other_story, interaction_id) is None


async def test_replace_content_changes_one_interaction_of_its_own_story(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    target = ids[ACCOUNTS[1], 1, 1]
    before = await snapshot(interactions)

    await interactions.replace_content(stories[ACCOUNTS[1], 0], target, content("Elsewhere"))
    assert await snapshot(interactions) == before

    await interactions.replace_content(stories[ACCOUNTS[1], 1], target, content("Pick a size"))
    after = await snapshot(interactions)
    assert changed(before, after) == {target}
    assert after[target]["name"] == "Pick a size"
    assert after[target]["storyId"] == stories[ACCOUNTS[1], 1]


async def test_delete_many_deletes_only_the_named_interactions_of_that_story(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    before = await snapshot(interactions)

    named = [ids[ACCOUNTS[0], 1, 0], ids[ACCOUNTS[0], 1, 1], ids[ACCOUNTS[1], 1, 0]]
    await interactions.delete_many(stories[ACCOUNTS[0], 1], named)

    after = await snapshot(interactions)
    assert changed(before, after) == set(named[:2])
    assert len(after) == len(before) - 2


async def test_delete_for_story_deletes_that_story_s_interactions_only(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    before = await snapshot(interactions)

    await interactions.delete_for_story(stories[ACCOUNTS[2], 0])

    after = await snapshot(interactions)
    assert changed(before, after) == {ids[ACCOUNTS[2], 0, n] for n in range(3)}
    assert len(after) == len(before) - 3


async def test_using_entity_finds_the_account_s_interactions_naming_that_entity(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    for account in ACCOUNTS:
        using_city = await interactions.using_entity(account, "city")
        assert {d["_id"]: d["storyId"] for d in using_city} == {
            ids[account, s, 0]: stories[account, s] for s in range(2)
        }
        using_size = await interactions.using_entity(account, "size")
        assert {d["_id"] for d in using_size} == {ids[account, s, 1] for s in range(2)}
        assert await interactions.using_entity(account, "colour") == []


async def test_with_triggers_finds_the_story_s_sharing_and_untagged_interactions_only(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    story = stories[ACCOUNTS[1], 0]
    for (account, s, n), interaction_id in ids.items():
        triggers = [f"T{n}", "shared"] if n < 2 else []
        await interactions.replace_content(
            stories[account, s], interaction_id, {**content("x"), "triggers": triggers}
        )
    untagged = ids[ACCOUNTS[1], 0, 2]
    elsewhere = ids[ACCOUNTS[1], 1, 2]
    for interaction_id in (untagged, elsewhere):  # stored before `triggerKeys` existed
        await interactions.collection.update_one(
            {"_id": interaction_id}, {"$unset": {"triggerKeys": 1}}
        )

    found = await interactions.with_triggers(story, ["t0"])
    both = await interactions.with_triggers(story, ["SHARED", "nothing"])

    assert found == {ids[ACCOUNTS[1], 0, 0]: ["T0", "shared"], untagged: []}
    assert set(both) == {ids[ACCOUNTS[1], 0, 0], ids[ACCOUNTS[1], 0, 1], untagged}


async def test_count_phrases_counts_the_named_interactions_of_that_story_only(
    interactions: InteractionRepository,
) -> None:
    ids, stories = await seed(interactions)
    story = stories[ACCOUNTS[2], 1]
    await interactions.replace_content(
        story, ids[ACCOUNTS[2], 1, 1], {**content("x"), "userSays": ["a", "b", "c"]}
    )
    named = [ids[ACCOUNTS[2], 1, 0], ids[ACCOUNTS[2], 1, 1], ids[ACCOUNTS[2], 0, 1]]

    assert await interactions.count_phrases(story, named) == 1 + 3
    assert await interactions.count_phrases(story, []) == 0
