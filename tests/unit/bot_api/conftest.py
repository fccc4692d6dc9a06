"""Management services over in-memory repositories; `announced` holds every change
they announced, in order (it stands where the publisher does: it hears every change)."""

from collections.abc import Iterator

import pytest

from bot_api.changes import ChangeFeed, Handler
from bot_api.entities.service import EntityService
from bot_api.interactions.service import InteractionService
from bot_api.quotas import Quotas
from bot_api.stories.service import StoryService
from integration.bot_api.connections.memory import ConnectionDirectory
from integration.bot_api.story_tests.memory import ConversationTestsInMemory
from shared.config import Config
from shared.fair_work import FairWork
from support.changes import Announced
from support.memory import Database
from support.story_service import entity_service, interaction_service, story_service


@pytest.fixture
def work() -> Iterator[FairWork]:
    """One thread for long work (test runs, reports), shared fairly between accounts."""
    work = FairWork(1, "work")
    yield work
    work.close()


@pytest.fixture
def database() -> Database:
    return Database()


@pytest.fixture
def announced() -> Announced:
    return Announced()


@pytest.fixture
def feed(announced: Announced) -> ChangeFeed:
    feed = ChangeFeed()
    feed.handle(Handler.PUBLISHER, announced)
    return feed


@pytest.fixture
def quotas() -> Quotas:
    """The default quotas."""
    return Quotas.from_config(Config(mongodb_url="", nats_url=""))


@pytest.fixture
def saved_tests() -> ConversationTestsInMemory:
    """The conversation tests of the stories (a story's deletion takes its own)."""
    return ConversationTestsInMemory()


@pytest.fixture
def stories(
    database: Database, feed: ChangeFeed, quotas: Quotas, saved_tests: ConversationTestsInMemory
) -> StoryService:
    return story_service(database, feed, quotas, tests=saved_tests)


@pytest.fixture
def connections() -> ConnectionDirectory:
    return ConnectionDirectory()


@pytest.fixture
def interactions(
    database: Database, feed: ChangeFeed, connections: ConnectionDirectory, quotas: Quotas
) -> InteractionService:
    return interaction_service(database, feed, quotas, connections)


@pytest.fixture
def entities(database: Database, feed: ChangeFeed, quotas: Quotas) -> EntityService:
    return entity_service(database, feed, quotas)
