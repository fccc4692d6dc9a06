"""Fixtures of the bot-api end-to-end tests."""

import pytest

from support.api import Api


@pytest.fixture
async def story_id(api: Api) -> str:
    """A fresh story of the default account (welcome and fallback only)."""
    return await api.create_story("Pizza")
