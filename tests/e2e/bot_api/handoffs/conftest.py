"""The handoff tests' story, which hands conversations to a person."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from shared.config import Config
from support.api import Tenant
from support.handoffs import Handed, hand_over


@pytest.fixture
async def handed(
    aiohttp_client: Any, aiohttp_server: Any, config: Config, alice: Tenant, bot_api: TestClient
) -> Handed:
    """A story whose "Human" interaction hands over to a connection of the story."""
    return await hand_over(aiohttp_client, aiohttp_server, config, alice, bot_api)
