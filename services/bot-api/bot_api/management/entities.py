"""Entities of an account. One in use by interactions can be neither deleted nor renamed,
so no interaction is ever left naming an entity that does not exist."""

from typing import Any

from bot_api.storage import Stores
from bot_api.storage.entities import to_api
from shared.errors import Conflict, NotFound


async def list_entities(stores: Stores, account_id: str) -> list[dict[str, Any]]:
    return [to_api(document) for document in await stores.entities.list(account_id)]


async def read_entity(stores: Stores, account_id: str, entity_id: str) -> dict[str, Any]:
    return to_api(await _load(stores, account_id, entity_id))


async def create_entity(stores: Stores, account_id: str, data: dict[str, Any]) -> str:
    return await stores.entities.insert(account_id, data)


async def update_entity(
    stores: Stores, account_id: str, entity_id: str, data: dict[str, Any]
) -> None:
    current = await _load(stores, account_id, entity_id)
    if data["name"] != current["name"]:
        await _refuse_if_used(stores, account_id, current["name"], "renamed")
    if not await stores.entities.replace(account_id, entity_id, data):
        raise NotFound(f"no entity {entity_id}")


async def delete_entity(stores: Stores, account_id: str, entity_id: str) -> None:
    current = await _load(stores, account_id, entity_id)
    await _refuse_if_used(stores, account_id, current["name"], "deleted")
    if not await stores.entities.delete(account_id, entity_id):
        raise NotFound(f"no entity {entity_id}")


async def _load(stores: Stores, account_id: str, entity_id: str) -> dict[str, Any]:
    document = await stores.entities.get(account_id, entity_id)
    if document is None:
        raise NotFound(f"no entity {entity_id}")
    return document


async def _refuse_if_used(stores: Stores, account_id: str, name: str, verb: str) -> None:
    ids = await _interactions_using(stores, account_id, name)
    if ids:
        raise Conflict(
            f"entity {name!r} is used by interactions {', '.join(ids)} and cannot be {verb}",
            {"interactions": ids},
        )


async def _interactions_using(stores: Stores, account_id: str, name: str) -> list[str]:
    """Ids of the interactions, listed by their story, whose parameters use the entity.

    A document no story lists (left by a write cut short) does not count.
    """
    by_story: dict[str, list[str]] = {}
    for document in await stores.interactions.using_entity(account_id, name):
        by_story.setdefault(document["storyId"], []).append(document["_id"])
    used: list[str] = []
    for story_id, ids in by_story.items():
        story = await stores.stories.get(account_id, story_id)
        if story is not None:
            used.extend(i for i in ids if i in story.structure)
    return sorted(used)
