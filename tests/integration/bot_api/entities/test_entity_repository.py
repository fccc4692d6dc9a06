"""EntityRepository on the embedded MongoDB and its in-memory twin, held to one contract:
three accounts with three entities each, some names shared between accounts; every call
reads or changes exactly the entity it names, through its own account only."""

from collections.abc import AsyncIterator

import pytest
from pymongo import AsyncMongoClient

from bot_api.domain.entities import Entity, Entry
from bot_api.entities.repository import EntityRepository, EntityStore, StoredEntity
from integration.bot_api.entities.memory import EntitiesInMemory
from shared.config import Config
from shared.errors import Conflict
from support.documents import ACCOUNTS, Documents, changed, contents
from support.memory import Database

NAMES = {ACCOUNTS[0]: ("city", "size", "color"), ACCOUNTS[1]: ("city", "topping", "drink")}
NAMES[ACCOUNTS[2]] = ("size", "crust", "sauce")


def entity(name: str, *values: str) -> Entity:
    return Entity(name, tuple(Entry(v, (v, v.upper())) for v in values or (name,)))


@pytest.fixture
async def repository(mongo_client: AsyncMongoClient, config: Config) -> EntityRepository:
    repository = EntityRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    return repository


@pytest.fixture(params=["mongodb", "memory"])
async def entities(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[EntityStore]:
    store: EntityStore
    if request.param == "mongodb":
        store = EntityRepository(mongo_client[config.bot_database])
    else:
        store = Database().entities
    await store.ensure_indexes()
    yield store


async def seed(entities: EntityStore) -> dict[tuple[str, str], str]:
    """(account, name) -> entity id, created in turns across the accounts."""
    ids = {}
    for n in range(3):
        for account in ACCOUNTS:
            name = NAMES[account][n]
            ids[account, name] = await entities.insert(account, entity(name))
    return ids


async def snapshot(entities: EntityStore) -> Documents:
    if isinstance(entities, EntityRepository):
        return await contents(entities.collection)
    assert isinstance(entities, EntitiesInMemory)
    return dict(entities.records)


async def test_insert_adds_one_entity_and_refuses_a_name_the_account_holds(
    entities: EntityStore,
) -> None:
    await seed(entities)
    before = await snapshot(entities)

    with pytest.raises(Conflict):
        await entities.insert(ACCOUNTS[0], entity("size"))
    assert await snapshot(entities) == before

    entity_id = await entities.insert(ACCOUNTS[0], entity("topping", "ham"))
    after = await snapshot(entities)
    assert changed(before, after) == {entity_id}
    assert await entities.get(ACCOUNTS[0], entity_id) == StoredEntity(
        entity_id, entity("topping", "ham")
    )
    assert await entities.totals(ACCOUNTS[0]) == (4, 4)


async def test_list_returns_the_account_s_entities_oldest_first(
    entities: EntityStore,
) -> None:
    ids = await seed(entities)
    for account in ACCOUNTS:
        listed = await entities.list(account)
        assert listed == [StoredEntity(ids[account, n], entity(n)) for n in NAMES[account]]


async def test_get_finds_an_entity_only_through_its_own_account(
    entities: EntityStore,
) -> None:
    ids = await seed(entities)
    for (account, name), entity_id in ids.items():
        found = await entities.get(account, entity_id)
        assert found == StoredEntity(entity_id, entity(name))
        for other in ACCOUNTS:
            if other != account:
                assert await entities.get(other, entity_id) is None
    assert await entities.get(ACCOUNTS[0], "not-an-id") is None


async def test_replace_changes_one_entity_of_its_own_account(entities: EntityStore) -> None:
    ids = await seed(entities)
    target = ids[ACCOUNTS[1], "topping"]
    before = await snapshot(entities)

    assert not await entities.replace(ACCOUNTS[0], target, entity("stolen"))
    assert await snapshot(entities) == before

    # `crust` is a name of another account only, so this account may take it.
    assert await entities.replace(ACCOUNTS[1], target, entity("crust", "thin", "thick"))
    after = await snapshot(entities)
    assert changed(before, after) == {target}
    replaced = await entities.get(ACCOUNTS[1], target)
    assert replaced == StoredEntity(target, entity("crust", "thin", "thick"))


async def test_replace_refuses_a_name_another_entity_of_the_account_holds(
    entities: EntityStore,
) -> None:
    ids = await seed(entities)
    before = await snapshot(entities)

    with pytest.raises(Conflict):
        await entities.replace(ACCOUNTS[2], ids[ACCOUNTS[2], "crust"], entity("sauce"))

    assert await snapshot(entities) == before


async def test_delete_deletes_one_entity_of_its_own_account(entities: EntityStore) -> None:
    ids = await seed(entities)
    target = ids[ACCOUNTS[0], "city"]
    before = await snapshot(entities)

    assert not await entities.delete(ACCOUNTS[1], target)
    assert not await entities.delete(ACCOUNTS[0], "not-an-id")
    assert await snapshot(entities) == before

    assert await entities.delete(ACCOUNTS[0], target)
    after = await snapshot(entities)
    assert changed(before, after) == {target}
    assert len(after) == len(before) - 1


async def test_existing_names_are_the_account_s_own(entities: EntityStore) -> None:
    await seed(entities)
    asked = ["city", "size", "crust", "nothing"]

    assert await entities.existing_names(ACCOUNTS[0], asked) == {"city", "size"}
    assert await entities.existing_names(ACCOUNTS[1], asked) == {"city"}
    assert await entities.existing_names(ACCOUNTS[2], asked) == {"size", "crust"}
    assert await entities.existing_names(ACCOUNTS[2], []) == set()


async def test_with_names_are_the_account_s_own_entities_whole(entities: EntityStore) -> None:
    ids = await seed(entities)
    asked = ["city", "size", "crust", "nothing"]

    found = await entities.with_names(ACCOUNTS[2], asked)
    assert sorted((e.id, e.entity) for e in found) == sorted(
        [(ids[ACCOUNTS[2], "size"], entity("size")), (ids[ACCOUNTS[2], "crust"], entity("crust"))]
    )
    assert [e.entity.name for e in await entities.with_names(ACCOUNTS[1], asked)] == ["city"]
    assert await entities.with_names(ACCOUNTS[0], ["nothing"]) == []


async def test_the_stored_document_keeps_the_format_existing_databases_hold(
    repository: EntityRepository,
) -> None:
    entity_id = await repository.insert(ACCOUNTS[0], entity("size", "small", "large"))

    stored = await repository.collection.find_one({"accountId": ACCOUNTS[0]})

    assert stored is not None and str(stored["_id"]) == entity_id
    assert list(stored) == [
        "_id",
        "accountId",
        "name",
        "entries",
        "translations",
        "entryCount",
        "createdAt",
        "updatedAt",
    ]
    assert stored["entryCount"] == 2
    assert stored["entries"] == [
        {"value": "small", "synonyms": [{"value": "small"}, {"value": "SMALL"}]},
        {"value": "large", "synonyms": [{"value": "large"}, {"value": "LARGE"}]},
    ]


async def test_totals_count_the_entries_of_every_language_per_account(
    entities: EntityStore,
) -> None:
    await seed(entities)
    german = (Entry("large", ("groß",)), Entry("small", ("klein",)))
    sizes = Entity("pizza", entity("pizza", "large", "small").entries, {"de": german, "fr": german})
    await entities.insert(ACCOUNTS[1], sizes)
    assert await entities.totals(ACCOUNTS[1]) == (4, 3 + 6)
    assert await entities.totals(ACCOUNTS[0]) == (3, 3)


async def test_an_entity_stored_before_its_count_is_counted_by_its_entries(
    repository: EntityRepository,
) -> None:
    document = {
        "accountId": ACCOUNTS[2],
        "name": "old",
        "entries": [{"value": "a"}, {"value": "b"}],
    }
    await repository.collection.insert_one(document)
    await repository.insert(
        ACCOUNTS[2], Entity("new", entity("new").entries, {"de": entity("x").entries})
    )
    assert await repository.totals(ACCOUNTS[2]) == (2, 2 + 2)
