"""The versions' setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.entities.keys import ENTITY_STORE
from bot_api.interactions.keys import INTERACTION_STORE
from bot_api.keys import CHANGES, CONFIG, QUOTAS
from bot_api.knowledge.keys import KNOWLEDGE_STORE
from bot_api.stories.keys import STORY_STORE
from bot_api.transfer.keys import TRANSFER, TRANSFER_WORK
from bot_api.versions.keys import VERSION_STORE, VERSIONS
from bot_api.versions.schemas import StoryDocuments
from bot_api.versions.service import VersionService


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The use cases, whose documents are written and read in the transfer's threads."""
    app[VERSIONS] = VersionService(
        stories=app[STORY_STORE],
        interactions=app[INTERACTION_STORE],
        entities=app[ENTITY_STORE],
        versions=app[VERSION_STORE],
        changes=app[CHANGES],
        quotas=app[QUOTAS],
        transfer=app[TRANSFER],
        documents=StoryDocuments(),
        work=app[TRANSFER_WORK],
        knowledge=app[KNOWLEDGE_STORE],
        limit=app[CONFIG].request_budget_seconds,
    )
    yield
