"""MongoDB persistence of bot-api, one repository per collection."""

from dataclasses import dataclass

from bot_api.storage.connections import ConnectionViewRepository
from bot_api.storage.entities import EntityRepository
from bot_api.storage.interactions import InteractionRepository
from bot_api.storage.protocols import (
    ConnectionView,
    EntityStore,
    InteractionStore,
    SessionStore,
    StoryStore,
    TurnStore,
    VersionStore,
)
from bot_api.storage.sessions import SessionRepository
from bot_api.storage.stories import StoryRepository
from bot_api.storage.turns import TurnRepository
from bot_api.storage.versions import VersionRepository
from shared.ids import new_object_id, object_id
from shared.mongo import Database


@dataclass(frozen=True)
class Stores:
    """Typed by what the callers need, so tests can build one in memory."""

    stories: StoryStore
    interactions: InteractionStore
    entities: EntityStore
    sessions: SessionStore
    connections: ConnectionView
    turns: TurnStore
    versions: VersionStore

    @classmethod
    def open(cls, database: Database) -> "Stores":
        return cls(
            stories=StoryRepository(database),
            interactions=InteractionRepository(database),
            entities=EntityRepository(database),
            sessions=SessionRepository(database),
            connections=ConnectionViewRepository(database),
            turns=TurnRepository(database),
            versions=VersionRepository(database),
        )

    async def ensure_indexes(self) -> None:
        for repository in (
            self.stories,
            self.interactions,
            self.entities,
            self.sessions,
            self.connections,
            self.turns,
            self.versions,
        ):
            await repository.ensure_indexes()


__all__ = ["Stores", "new_object_id", "object_id"]
