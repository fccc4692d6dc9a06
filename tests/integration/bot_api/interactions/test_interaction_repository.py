"""InteractionRepository on the embedded MongoDB and its in-memory twin, held to one
contract: three accounts, two stories each, three interactions per story; every call
reads or changes exactly the interactions of the story it names."""

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from pymongo import AsyncMongoClient

from bot_api.domain.interactions import STANDARD, WELCOME, Interaction, Parameter
from bot_api.domain.responses import (
    Button,
    ButtonTemplate,
    Card,
    Handoff,
    Image,
    QuickReplies,
    TextChoice,
)
from bot_api.interactions.repository import (
    InteractionRepository,
    InteractionStore,
    InteractionSummary,
)
from integration.bot_api.interactions.memory import InteractionsInMemory
from shared.config import Config
from shared.ids import new_object_id
from support.documents import ACCOUNTS, Documents, changed, contents
from support.memory import Database

Ids = dict[tuple[str, int, int], str]


def content(name: str, entity: str | None = None) -> Interaction:
    parameters = () if entity is None else (Parameter(entity, entity),)
    return Interaction(
        id=new_object_id(),
        kind=STANDARD,
        name=name,
        user_says=(name.lower(),),
        parameters=parameters,
        responses=(TextChoice((name,)),),
    )


@pytest.fixture
async def repository(mongo_client: AsyncMongoClient, config: Config) -> InteractionRepository:
    repository = InteractionRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    return repository


@pytest.fixture(params=["mongodb", "memory"])
async def interactions(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[InteractionStore]:
    store: InteractionStore
    if request.param == "mongodb":
        store = InteractionRepository(mongo_client[config.bot_database])
    else:
        store = Database().interactions
    await store.ensure_indexes()
    yield store


async def seed(interactions: InteractionStore) -> tuple[Ids, dict[tuple[str, int], str]]:
    """(account, story, n) -> interaction id and (account, story) -> story id. Interaction 0
    of each story uses the entity `city`, interaction 1 uses `size`, 2 uses none."""
    ids: Ids = {}
    stories = {}
    for account in ACCOUNTS:
        for s in range(2):
            story_id = stories[account, s] = new_object_id()
            batch = [content("Order", "city"), content("Size", "size"), content("Bye")]
            await interactions.insert_many(account, story_id, batch)
            ids.update({(account, s, n): item.id for n, item in enumerate(batch)})
    return ids, stories


async def snapshot(interactions: InteractionStore) -> Documents:
    if isinstance(interactions, InteractionRepository):
        return await contents(interactions.collection)
    assert isinstance(interactions, InteractionsInMemory)
    return dict(interactions.records)


async def test_insert_many_adds_exactly_the_given_interactions(
    interactions: InteractionStore,
) -> None:
    _, stories = await seed(interactions)
    before = await snapshot(interactions)

    batch = [content("Menu"), content("Pay", "city")]
    await interactions.insert_many(ACCOUNTS[1], stories[ACCOUNTS[1], 0], batch)

    after = await snapshot(interactions)
    assert changed(before, after) == {item.id for item in batch}
    found = await interactions.find(stories[ACCOUNTS[1], 0], [item.id for item in batch])
    assert found == {item.id: item for item in batch}
    using_city = await interactions.using_entity(ACCOUNTS[1], "city")
    assert using_city[batch[1].id] == stories[ACCOUNTS[1], 0]


async def test_find_returns_only_the_named_interactions_of_that_story(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    wanted = [ids[ACCOUNTS[2], 1, 0], ids[ACCOUNTS[2], 1, 2]]
    elsewhere = [ids[ACCOUNTS[2], 0, 0], ids[ACCOUNTS[0], 1, 0]]

    found = await interactions.find(stories[ACCOUNTS[2], 1], [*wanted, *elsewhere])

    assert set(found) == set(wanted)
    assert [found[i].name for i in wanted] == ["Order", "Bye"]
    assert await interactions.find(stories[ACCOUNTS[2], 1], []) == {}


async def test_summaries_are_the_names_and_webhooks_of_that_story_s_interactions(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    story = stories[ACCOUNTS[0], 0]
    hooked = replace(content("Size"), id=ids[ACCOUNTS[0], 0, 1], webhook="https://hooks.test/a")
    await interactions.replace_content(story, hooked)
    named = [ids[ACCOUNTS[0], 0, n] for n in range(3)]

    found = await interactions.summaries(story, [*named, ids[ACCOUNTS[0], 1, 0]])

    assert found == {
        named[0]: InteractionSummary("Order", ""),
        named[1]: InteractionSummary("Size", "https://hooks.test/a"),
        named[2]: InteractionSummary("Bye", ""),
    }


async def test_get_finds_an_interaction_only_through_its_own_story(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    for (account, s, _), interaction_id in ids.items():
        found = await interactions.get(stories[account, s], interaction_id)
        assert found is not None and found.id == interaction_id
        for other_story in stories.values():
            if other_story != stories[account, s]:
                assert await interactions.get(other_story, interaction_id) is None


async def test_replace_content_changes_one_interaction_of_its_own_story(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    target = ids[ACCOUNTS[1], 1, 1]
    before = await snapshot(interactions)

    await interactions.replace_content(
        stories[ACCOUNTS[1], 0], replace(content("Elsewhere"), id=target)
    )
    assert await snapshot(interactions) == before

    edited = replace(content("Pick a size", "size"), id=target, triggers=("size",))
    await interactions.replace_content(stories[ACCOUNTS[1], 1], edited)
    after = await snapshot(interactions)
    assert changed(before, after) == {target}
    assert await interactions.get(stories[ACCOUNTS[1], 1], target) == edited


async def test_delete_many_deletes_only_the_named_interactions_of_that_story(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    before = await snapshot(interactions)

    named = [ids[ACCOUNTS[0], 1, 0], ids[ACCOUNTS[0], 1, 1], ids[ACCOUNTS[1], 1, 0]]
    await interactions.delete_many(stories[ACCOUNTS[0], 1], named)

    after = await snapshot(interactions)
    assert changed(before, after) == set(named[:2])
    assert len(after) == len(before) - 2


async def test_delete_for_story_deletes_that_story_s_interactions_only(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    before = await snapshot(interactions)

    await interactions.delete_for_story(stories[ACCOUNTS[2], 0])

    after = await snapshot(interactions)
    assert changed(before, after) == {ids[ACCOUNTS[2], 0, n] for n in range(3)}
    assert len(after) == len(before) - 3


async def test_using_entity_finds_the_account_s_interactions_naming_that_entity(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    for account in ACCOUNTS:
        using_city = await interactions.using_entity(account, "city")
        assert using_city == {ids[account, s, 0]: stories[account, s] for s in range(2)}
        using_size = await interactions.using_entity(account, "size")
        assert set(using_size) == {ids[account, s, 1] for s in range(2)}
        assert await interactions.using_entity(account, "colour") == {}


async def test_with_triggers_finds_the_story_s_interactions_sharing_one_in_any_case(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    story = stories[ACCOUNTS[1], 0]
    for (account, s, n), interaction_id in ids.items():
        triggers = (f"T{n}", "shared") if n < 2 else ()
        edited = replace(content("x"), id=interaction_id, triggers=triggers)
        await interactions.replace_content(stories[account, s], edited)

    found = await interactions.with_triggers(story, ["t0"])
    both = await interactions.with_triggers(story, ["SHARED", "nothing"])

    assert found == {ids[ACCOUNTS[1], 0, 0]: ["T0", "shared"]}
    assert set(both) == {ids[ACCOUNTS[1], 0, 0], ids[ACCOUNTS[1], 0, 1]}


async def test_count_phrases_counts_the_named_interactions_of_that_story_only(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    story = stories[ACCOUNTS[2], 1]
    edited = replace(content("x"), id=ids[ACCOUNTS[2], 1, 1], user_says=("a", "b", "c"))
    await interactions.replace_content(story, edited)
    named = [ids[ACCOUNTS[2], 1, 0], ids[ACCOUNTS[2], 1, 1], ids[ACCOUNTS[2], 0, 1]]

    assert await interactions.count_phrases(story, named) == 1 + 3
    assert await interactions.count_phrases(story, []) == 0


async def test_with_triggers_also_finds_interactions_stored_before_trigger_keys(
    repository: InteractionRepository,
) -> None:
    ids, stories = await seed(repository)
    story = stories[ACCOUNTS[1], 0]
    tagged = replace(content("x"), id=ids[ACCOUNTS[1], 0, 0], triggers=("T0",))
    await repository.replace_content(story, tagged)
    untagged = ids[ACCOUNTS[1], 0, 2]
    elsewhere = ids[ACCOUNTS[1], 1, 2]
    for interaction_id in (untagged, elsewhere):  # stored before `triggerKeys` existed
        await repository.collection.update_one(
            {"_id": interaction_id}, {"$unset": {"triggerKeys": 1}}
        )

    found = await repository.with_triggers(story, ["t0"])

    assert found == {tagged.id: ["T0"], untagged: []}


async def test_the_stored_document_keeps_the_format_existing_databases_hold(
    repository: InteractionRepository,
) -> None:
    story_id = new_object_id()
    every_block = Interaction(
        id=new_object_id(),
        kind=WELCOME,
        name="Welcome",
        action="welcome",
        triggers=("welcome", "Start"),
        user_says=("hi {{city:town}}",),
        parameters=(
            Parameter("town", "city", ("Which town?",)),
            Parameter("size", "size", ("Which size?",), ("Small", "Large")),
        ),
        responses=(
            TextChoice(("Hello", "Hi")),
            QuickReplies("Size?", ("S", "L")),
            Image("https://img.test/a.png"),
            Card("Pizza", "", "", (Button("Order", "order"),)),
            ButtonTemplate("Pick", (Button("Yes", "Yes"),)),
        ),
        webhook="https://hooks.test/a",
    )
    await repository.insert_many(ACCOUNTS[0], story_id, [every_block])

    stored = await repository.collection.find_one({"_id": every_block.id})

    assert stored is not None
    assert list(stored) == [
        "_id", "accountId", "storyId", "type", "name", "action", "triggers", "userSays",
        "parameters", "responses", "webhook", "translations", "triggerKeys", "createdAt",
        "updatedAt",
    ]  # fmt: skip
    assert {k: v for k, v in stored.items() if k not in ("createdAt", "updatedAt")} == {
        "_id": every_block.id,
        "accountId": ACCOUNTS[0],
        "storyId": story_id,
        "type": "welcome",
        "name": "Welcome",
        "action": "welcome",
        "triggers": ["welcome", "Start"],
        "userSays": ["hi {{city:town}}"],
        "parameters": [
            {"alias": "town", "entity": "city", "prompts": ["Which town?"]},
            {
                "alias": "size",
                "entity": "size",
                "prompts": ["Which size?"],
                "promptReplies": ["Small", "Large"],
            },
        ],
        "responses": [
            {"type": "text", "messages": ["Hello", "Hi"]},
            {"type": "quickReply", "title": "Size?", "replies": ["S", "L"]},
            {"type": "image", "imageUrl": "https://img.test/a.png"},
            {
                "type": "card",
                "title": "Pizza",
                "subtitle": "",
                "imageUrl": "",
                "buttons": [{"title": "Order", "postback": "order"}],
            },
            {
                "type": "buttonTemplate",
                "title": "Pick",
                "buttons": [{"title": "Yes", "postback": "Yes"}],
            },
        ],
        "webhook": "https://hooks.test/a",
        "translations": {},
        "triggerKeys": ["start", "welcome"],
    }
    assert await repository.get(story_id, every_block.id) == every_block


async def test_awaiting_interactions_call_the_connection_of_their_story_once_it_comes(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    story = stories[ACCOUNTS[0], 1]
    order, size, bye = (ids[ACCOUNTS[0], 1, n] for n in range(3))
    elsewhere = stories[ACCOUNTS[1], 1]
    await interactions.await_connections(story, {order: "Orders", size: "Orders", bye: "Sizes"})
    await interactions.await_connections(elsewhere, {ids[ACCOUNTS[1], 1, 0]: "Orders"})
    given = replace(content("Size"), id=size, webhook="https://hooks.test/size")
    await interactions.replace_content(story, given)

    assert await interactions.awaited_connections(story) == {
        order: "Orders",
        size: "Orders",
        bye: "Sizes",
    }
    assert await interactions.connect_awaiting(story, "Orders", "c" * 24) == [order]
    found = await interactions.find(story, [order, size, bye])
    assert (found[order].webhook, found[size].webhook, found[bye].webhook) == (
        "c" * 24,
        "https://hooks.test/size",
        "",
    )
    assert await interactions.awaited_connections(story) == {bye: "Sizes"}
    assert await interactions.awaited_connections(elsewhere) == {ids[ACCOUNTS[1], 1, 0]: "Orders"}
    assert await interactions.connect_awaiting(story, "Orders", "d" * 24) == []


async def test_awaiting_interactions_hand_over_to_the_connection_of_their_story_once_it_comes(
    interactions: InteractionStore,
) -> None:
    ids, stories = await seed(interactions)
    story = stories[ACCOUNTS[0], 1]
    order, size, bye = (ids[ACCOUNTS[0], 1, n] for n in range(3))
    elsewhere = stories[ACCOUNTS[1], 1]
    await interactions.await_handoffs(story, {order: "Desk", size: "Desk", bye: "Other"})
    await interactions.await_connections(story, {order: "Desk"})
    await interactions.await_handoffs(elsewhere, {ids[ACCOUNTS[1], 1, 0]: "Desk"})
    given = replace(content("Size"), id=size)
    given = replace(given, responses=(*given.responses, Handoff("e" * 24)))
    await interactions.replace_content(story, given)

    assert await interactions.awaited_handoffs(story) == {order: "Desk", size: "Desk", bye: "Other"}
    assert await interactions.connect_awaiting(story, "Desk", "c" * 24) == [order]
    found = await interactions.find(story, [order, size, bye])
    assert found[order].responses == (TextChoice(("Order",)), Handoff("c" * 24))
    assert found[order].webhook == "c" * 24
    assert found[size].responses == given.responses
    assert found[bye].responses == (TextChoice(("Bye",)),)
    assert await interactions.awaited_handoffs(story) == {bye: "Other"}
    assert await interactions.awaited_connections(story) == {}
    assert await interactions.awaited_handoffs(elsewhere) == {ids[ACCOUNTS[1], 1, 0]: "Desk"}
    assert await interactions.connect_awaiting(story, "Desk", "d" * 24) == []
