"""Entities of an account. One in use by interactions can be neither deleted nor renamed,
so no interaction is ever left naming an entity that does not exist."""

import contextlib
from typing import Protocol

from bot_api.changes import ChangeFeed, EntitiesEdited
from bot_api.domain.entities import Entity
from bot_api.entities.repository import EntityStore, StoredEntity
from bot_api.quotas import AccountQuotas
from bot_api.stories.repository import StoryStore
from shared.errors import Conflict, NotFound
from shared.pages import Page


class EntityUsers(Protocol):
    """Which interactions use an entity (interactions.repository.InteractionStore)."""

    async def using_entity(self, account_id: str, entity: str) -> dict[str, str]:
        """The story id of each of the account's interactions (by id) with a parameter of
        `entity`."""


class EntityService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: EntityUsers,
        entities: EntityStore,
        changes: ChangeFeed,
        quotas: AccountQuotas,
    ) -> None:
        self._stories = stories
        self._interactions = interactions
        self._entities = entities
        self._changes = changes
        self._quotas = quotas

    async def list_entities(self, *, account_id: str, page: Page) -> tuple[list[StoredEntity], int]:
        """A page of the account's entities and their total."""
        entities = self._entities
        return await entities.list(account_id, page), await entities.count(account_id)

    async def read(self, *, account_id: str, entity_id: str) -> StoredEntity:
        return await _load(self._entities, account_id, entity_id)

    async def create(self, *, account_id: str, entity: Entity, new_id: str | None = None) -> str:
        """Under `new_id` when given (a retried create), which may exist already."""
        if new_id is not None and await self._entities.get(account_id, new_id):
            return new_id
        entities, entries = await self._entities.totals(account_id)
        quotas = await self._quotas.of(account_id)
        quotas.check_entities(entities + 1, entries + entity.entry_count)
        entity_id = await self._entities.insert(account_id, entity, new_id)
        await self._changes.announce(EntitiesEdited(account_id))
        return entity_id

    async def update(self, *, account_id: str, entity_id: str, entity: Entity) -> None:
        """Name and entries; no rename while interactions use the entity."""
        current = (await _load(self._entities, account_id, entity_id)).entity
        added = entity.entry_count - current.entry_count
        if added > 0:
            entities, entries = await self._entities.totals(account_id)
            quotas = await self._quotas.of(account_id)
            quotas.check_entities(entities, entries + added)
        if entity.name != current.name:
            await _refuse_if_used(
                self._interactions, self._stories, account_id, current.name, "renamed"
            )
        if not await self._entities.replace(account_id, entity_id, entity):
            raise NotFound(f"no entity {entity_id}")
        await self._changes.announce(EntitiesEdited(account_id))

    async def delete(self, *, account_id: str, entity_id: str) -> None:
        """Refused while a story's interaction uses the entity, and checked again once
        deleted: an import that wrote a story naming it meanwhile gets it back, under its
        id, and the delete is refused (the import checks after writing too,
        transfer/import_entities.py `restore_missing`)."""
        current = await _load(self._entities, account_id, entity_id)
        name = current.entity.name
        await _refuse_if_used(self._interactions, self._stories, account_id, name, "deleted")
        if not await self._entities.delete(account_id, entity_id):
            raise NotFound(f"no entity {entity_id}")
        try:
            await _refuse_if_used(self._interactions, self._stories, account_id, name, "deleted")
        except Conflict:
            with contextlib.suppress(Conflict):  # the import created it again already
                await self._entities.insert(account_id, current.entity, entity_id)
            raise
        finally:
            await self._changes.announce(EntitiesEdited(account_id))


async def _load(entities: EntityStore, account_id: str, entity_id: str) -> StoredEntity:
    stored = await entities.get(account_id, entity_id)
    if stored is None:
        raise NotFound(f"no entity {entity_id}")
    return stored


async def _refuse_if_used(
    users: EntityUsers, stories: StoryStore, account_id: str, name: str, verb: str
) -> None:
    ids = await _interactions_using(users, stories, account_id, name)
    if ids:
        raise Conflict(
            f"entity {name!r} is used by interactions {', '.join(ids)} and cannot be {verb}",
            {"interactions": ids},
        )


async def _interactions_using(
    users: EntityUsers, stories: StoryStore, account_id: str, name: str
) -> list[str]:
    """Ids of the interactions, listed by their story, whose parameters use the entity.

    A document no story lists (left by a write cut short) does not count.
    """
    by_story: dict[str, list[str]] = {}
    for interaction_id, story_id in (await users.using_entity(account_id, name)).items():
        by_story.setdefault(story_id, []).append(interaction_id)
    used: list[str] = []
    for story_id, ids in by_story.items():
        story = await stories.get(account_id, story_id)
        if story is not None:
            used.extend(i for i in ids if i in story.structure)
    return sorted(used)
