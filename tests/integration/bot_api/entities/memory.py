"""EntitiesInMemory, the `entities` collection in memory, held to EntityRepository's
contract by test_entity_repository.py beside it: entity names are unique per account.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bson import ObjectId

from bot_api.domain.entities import Entity
from bot_api.entities.repository import StoredEntity
from shared.errors import Conflict
from shared.ids import object_id
from shared.pages import EVERY_ITEM, Page
from support.journal import InMemory, Journal, sorted_ids


@dataclass(frozen=True)
class OwnedEntity:
    """An entity and the account it belongs to."""

    account_id: str
    entity: Entity


class EntitiesInMemory(InMemory):
    def __init__(self, database: Journal) -> None:
        super().__init__(database)
        self.records: dict[str, OwnedEntity] = {}
        """By id, oldest first."""

    async def insert(self, account_id: str, entity: Entity, entity_id: str | None = None) -> str:
        await self._database.record("entities.insert", entity.name)
        self._refuse_taken_name(account_id, None, entity.name)
        key = str(ObjectId(entity_id))
        self.records[key] = OwnedEntity(account_id, entity)
        return key

    async def list(self, account_id: str, page: Page = EVERY_ITEM) -> list[StoredEntity]:
        await self._database.record("entities.list", account_id)
        entities = [
            StoredEntity(i, r.entity) for i, r in self.records.items() if r.account_id == account_id
        ]
        return page.of(entities)

    async def count(self, account_id: str) -> int:
        return sum(r.account_id == account_id for r in self.records.values())

    async def totals(self, account_id: str) -> tuple[int, int]:
        await self._database.record("entities.totals", account_id)
        owned = [r.entity for r in self.records.values() if r.account_id == account_id]
        return len(owned), sum(entity.entry_count for entity in owned)

    async def get(self, account_id: str, entity_id: str) -> StoredEntity | None:
        await self._database.record("entities.get", entity_id)
        owned = self._of_account(account_id, entity_id)
        return None if owned is None else StoredEntity(entity_id, owned.entity)

    async def replace(self, account_id: str, entity_id: str, entity: Entity) -> bool:
        await self._database.record("entities.replace", entity_id)
        if self._of_account(account_id, entity_id) is None:
            return False
        self._refuse_taken_name(account_id, entity_id, entity.name)
        self.records[entity_id] = OwnedEntity(account_id, entity)
        return True

    async def delete(self, account_id: str, entity_id: str) -> bool:
        await self._database.record("entities.delete", entity_id)
        if self._of_account(account_id, entity_id) is None:
            return False
        del self.records[entity_id]
        return True

    async def with_names(self, account_id: str, names: Iterable[str]) -> Sequence[StoredEntity]:
        await self._database.record("entities.with_names", account_id)
        wanted = set(names)
        return [
            StoredEntity(entity_id, r.entity)
            for entity_id, r in self.records.items()
            if r.account_id == account_id and r.entity.name in wanted
        ]

    async def existing_names(self, account_id: str, names: Iterable[str]) -> set[str]:
        wanted = sorted_ids(names)
        await self._database.record("entities.existing_names", wanted)
        return {
            r.entity.name
            for r in self.records.values()
            if r.account_id == account_id and r.entity.name in wanted
        }

    def _of_account(self, account_id: str, entity_id: str) -> OwnedEntity | None:
        if object_id(entity_id) is None:
            return None
        owned = self.records.get(entity_id)
        return owned if owned is not None and owned.account_id == account_id else None

    def _refuse_taken_name(self, account_id: str, entity_id: str | None, name: str) -> None:
        for key, owned in self.records.items():
            same_name = (owned.account_id, owned.entity.name) == (account_id, name)
            if same_name and key != entity_id:
                raise Conflict(f"an entity named {name!r} already exists")
