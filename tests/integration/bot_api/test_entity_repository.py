"""EntityRepository against the embedded MongoDB: three accounts with three entities each,
some names shared between accounts; every call reads or changes exactly the entity it
names, through its own account only."""

import pytest
from pymongo import AsyncMongoClient

from bot_api.storage.entities import EntityRepository
from shared.config import Config
from shared.errors import Conflict
from support.documents import ACCOUNTS, Documents, changed, contents

NAMES = {ACCOUNTS[0]: ("city", "size", "color"), ACCOUNTS[1]: ("city", "topping", "drink")}
NAMES[ACCOUNTS[2]] = ("size", "crust", "sauce")


def entity(name: str, *values: str) -> dict[str, object]:
    entries = [{"value": v, "synonyms": [{"value": v}]} for v in values or (name,)]
    return {"name": name, "entries": entries}


@pytest.fixture
async def entities(mongo_client: AsyncMongoClient, config: Config) -> EntityRepository:
    repository = EntityRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    return repository


async def seed(entities: EntityRepository) -> dict[tuple[str, str], str]:
    """(account, name) -> entity id, created in turns across the accounts."""
    ids = {}
    for n in range(3):
        for account in ACCOUNTS:
            name = NAMES[account][n]
            ids[account, name] = await entities.insert(account, entity(name))
    return ids


async def snapshot(entities: EntityRepository) -> Documents:
    return await contents(entities.collection)


async def test_insert_adds_one_entity_and_refuses_a_name_the_account_holds(
    entities: EntityRepository,
) -> None:
    await seed(entities)
    before = await snapshot(entities)

    with pytest.raises(Conflict):
        await entities.insert(ACCOUNTS[0], entity("size"))
    assert await snapshot(entities) == before

    entity_id = await entities.insert(ACCOUNTS[0], entity("topping", "ham"))
    after = await snapshot(entities)
    assert changed(before, after) == {entity_id}
    stored = next(d for k, d in after.items() if str(k) == entity_id)
    assert (stored["accountId"], stored["name"]) == (ACCOUNTS[0], "topping")


async def test_list_returns_the_account_s_entities_oldest_first(
    entities: EntityRepository,
) -> None:
    ids = await seed(entities)
    for account in ACCOUNTS:
        listed = await entities.list(account)
        assert [str(d["_id"]) for d in listed] == [ids[account, n] for n in NAMES[account]]


async def test_get_finds_an_entity_only_through_its_own_account(
    entities: EntityRepository,
) -> None:
    ids = await seed(entities)
    for (account, name), entity_id in ids.items():
        found = await entities.get(account, entity_id)
        assert found is not None and found["name"] == name
        for other in ACCOUNTS:
            if other != account:
                assert await entities.get(other, entity_id) is None
    assert await entities.get(ACCOUNTS[0], "not-an-id") is None


async def test_replace_changes_one_entity_of_its_own_account(entities: EntityRepository) -> None:
    ids = await seed(entities)
    target = ids[ACCOUNTS[1], "topping"]
    before = await snapshot(entities)

    assert not await entities.replace(ACCOUNTS[0], target, entity("stolen"))
    assert await snapshot(entities) == before

    # `crust` is a name of another account only, so this account may take it.
    assert await entities.replace(ACCOUNTS[1], target, entity("crust", "thin", "thick"))
    after = await snapshot(entities)
    assert changed(before, after) == {target}
    assert (await entities.get(ACCOUNTS[1], target) or {})["entries"] == entity(
        "crust", "thin", "thick"
    )["entries"]


async def test_replace_refuses_a_name_another_entity_of_the_account_holds(
    entities: EntityRepository,
) -> None:
    ids = await seed(entities)
    before = await snapshot(entities)

    with pytest.raises(Conflict):
        await entities.replace(ACCOUNTS[2], ids[ACCOUNTS[2], "crust"], entity("sauce"))

    assert await snapshot(entities) == before


async def test_delete_deletes_one_entity_of_its_own_account(entities: EntityRepository) -> None:
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


async def test_existing_names_are_the_account_s_own(entities: EntityRepository) -> None:
    await seed(entities)
    asked = ["city", "size", "crust", "nothing"]

    assert await entities.existing_names(ACCOUNTS[0], asked) == {"city", "size"}
    assert await entities.existing_names(ACCOUNTS[1], asked) == {"city"}
    assert await entities.existing_names(ACCOUNTS[2], asked) == {"size", "crust"}
    assert await entities.existing_names(ACCOUNTS[2], []) == set()
