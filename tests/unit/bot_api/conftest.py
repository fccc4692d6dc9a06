"""Management services over in-memory repositories; `announced` holds every change
they announced, in order."""

from collections.abc import Iterator

import pytest

from bot_api.changes import ChangeFeed
from bot_api.entities.service import EntityService
from bot_api.interactions.service import InteractionService
from bot_api.quotas import Quotas
from bot_api.stories.service import StoryService
from shared.config import Config
from shared.fair_work import FairWork
from support.changes import Announced
from support.memory import ConnectionDirectory, Database


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
    feed.listen(announced)
    return feed


@pytest.fixture
def quotas() -> Quotas:
    """The default quotas."""
    return Quotas.from_config(Config(mongodb_url="", nats_url=""))


@pytest.fixture
def stories(database: Database, feed: ChangeFeed, quotas: Quotas) -> StoryService:
    return StoryService(
        stories=database.stories,
        interactions=database.interactions,
        sessions=database.sessions,
        turns=database.turns,
        versions=database.versions,
        changes=feed,
        quotas=quotas,
    )


@pytest.fixture
def connections() -> ConnectionDirectory:
    return ConnectionDirectory()


@pytest.fixture
def interactions(
    database: Database, feed: ChangeFeed, connections: ConnectionDirectory, quotas: Quotas
) -> InteractionService:
    return InteractionService(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        changes=feed,
        connections=connections,
        quotas=quotas,
    )


@pytest.fixture
def entities(database: Database, feed: ChangeFeed, quotas: Quotas) -> EntityService:
    return EntityService(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        changes=feed,
        quotas=quotas,
    )
