"""Management services over in-memory repositories; `announced` holds every change
they announced, in order."""

import pytest

from bot_api.changes import ChangeFeed
from bot_api.management.entities import EntityService
from bot_api.management.interactions import InteractionService
from bot_api.management.stories import StoryService
from support.changes import Announced
from support.memory import ConnectionDirectory, Database


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
def stories(database: Database, feed: ChangeFeed) -> StoryService:
    return StoryService(stores=database.stores(), changes=feed)


@pytest.fixture
def connections() -> ConnectionDirectory:
    return ConnectionDirectory()


@pytest.fixture
def interactions(
    database: Database, feed: ChangeFeed, connections: ConnectionDirectory
) -> InteractionService:
    return InteractionService(stores=database.stores(), changes=feed, connections=connections)


@pytest.fixture
def entities(database: Database, feed: ChangeFeed) -> EntityService:
    return EntityService(stores=database.stores(), changes=feed)
