"""Fixtures of the integration tests that talk to the embedded MongoDB directly."""

from collections.abc import AsyncIterator

import pytest
from pymongo import AsyncMongoClient

from shared import mongo
from shared.config import Config


@pytest.fixture
async def mongo_client(config: Config) -> AsyncIterator[AsyncMongoClient]:
    client = mongo.open_client(config.mongodb_url)
    yield client
    await client.close()
