"""MongoDB persistence of bot-api, one repository per collection."""

from dataclasses import dataclass

from bot_api.connections.repository import ConnectionView, ConnectionViewRepository
from bot_api.entities.repository import EntityRepository, EntityStore
from bot_api.history.repository import TurnRepository, TurnStore
from bot_api.interactions.repository import InteractionRepository, InteractionStore
from bot_api.query.repository import SessionRepository, SessionStore
from bot_api.stories.repository import StoryRepository, StoryStore
from bot_api.versions.repository import VersionRepository, VersionStore
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
