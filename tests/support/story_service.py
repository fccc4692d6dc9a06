"""A StoryService over an in-memory database, the rest of what a story owns (its
conversation tests, ignored texts, analytics, phrase vectors) in in-memory twins: fresh
ones unless a test gives those it reads back; and the InteractionService and
EntityService over the same database."""

from collections.abc import Callable

from bot_api.changes import ChangeFeed
from bot_api.entities.service import EntityService
from bot_api.interactions.service import InteractionService
from bot_api.quotas import AccountQuotas
from bot_api.stories.service import PublishCheck, StoryService
from bot_api.story_cache.repository import VectorStore
from bot_api.story_tests.repository import ConversationTestStore
from integration.bot_api.analytics.memory import AnalyticsInMemory
from integration.bot_api.connections.memory import ConnectionDirectory
from integration.bot_api.inbox.memory import InboxInMemory, InboxSnapshotsInMemory
from integration.bot_api.knowledge.memory import KnowledgeInMemory
from integration.bot_api.story_cache.memory import VectorsInMemory
from integration.bot_api.story_tests.memory import ConversationTestsInMemory
from support.memory import Database


def story_service(
    database: Database,
    changes: ChangeFeed,
    quotas: AccountQuotas,
    *,
    tests: ConversationTestStore | None = None,
    vectors: VectorStore | None = None,
    publish_check: PublishCheck | None = None,
    awaiting_meaning: Callable[[str], int] | None = None,
) -> StoryService:
    return StoryService(
        stories=database.stories,
        interactions=database.interactions,
        sessions=database.sessions,
        turns=database.turns,
        versions=database.versions,
        tests=ConversationTestsInMemory() if tests is None else tests,
        inbox=InboxInMemory(database.turns),
        inbox_snapshots=InboxSnapshotsInMemory(),
        analytics=AnalyticsInMemory(),
        vectors=VectorsInMemory() if vectors is None else vectors,
        knowledge=KnowledgeInMemory(),
        connections=database.connections,
        changes=changes,
        quotas=quotas,
        publish_check=publish_check,
        awaiting_meaning=awaiting_meaning,
    )


def interaction_service(
    database: Database,
    changes: ChangeFeed,
    quotas: AccountQuotas,
    connections: ConnectionDirectory | None = None,
) -> InteractionService:
    """`connections`: a stand-in directory of the story's webhook connections, an empty
    one unless a test gives the one it fills."""
    return InteractionService(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        changes=changes,
        connections=ConnectionDirectory() if connections is None else connections,
        quotas=quotas,
    )


def entity_service(database: Database, changes: ChangeFeed, quotas: AccountQuotas) -> EntityService:
    return EntityService(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        changes=changes,
        quotas=quotas,
    )
