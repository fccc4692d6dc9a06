"""A MongoDB client of the test's databases, to make the audit log refuse writes."""

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
