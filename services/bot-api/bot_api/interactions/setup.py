"""The interactions' setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.entities.keys import ENTITY_STORE
from bot_api.interactions.keys import CONNECTION_DIRECTORY, INTERACTION_STORE, INTERACTIONS
from bot_api.interactions.service import InteractionService
from bot_api.keys import CHANGES, QUOTAS
from bot_api.stories.keys import STORY_STORE


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The use cases, which ask integrations-api whether a connection is the story's."""
    app[INTERACTIONS] = InteractionService(
        stories=app[STORY_STORE],
        interactions=app[INTERACTION_STORE],
        entities=app[ENTITY_STORE],
        changes=app[CHANGES],
        connections=app[CONNECTION_DIRECTORY],
        quotas=app[QUOTAS],
    )
    yield
