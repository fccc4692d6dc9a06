"""The transfer's setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.connections.keys import CONNECTION_VIEW
from bot_api.entities.keys import ENTITY_STORE
from bot_api.interactions.keys import INTERACTION_STORE
from bot_api.keys import CHANGES, QUOTAS
from bot_api.knowledge.keys import KNOWLEDGE_STORE
from bot_api.stories.keys import STORY_STORE
from bot_api.story_tests.keys import TEST_STORE
from bot_api.transfer.keys import TRANSFER, TRANSFER_WORK
from bot_api.transfer.service import StoryTransfer
from shared.fair_work import FairWork

TRANSFER_THREADS = 2
"""Threads reading imports and writing exports and versions: one account's jobs run on
one of them at a time (FairWork), so another account's job finds the other free at once
even while a long one runs up to its next checkpoint."""


async def setup(app: web.Application) -> AsyncIterator[None]:
    app[TRANSFER] = StoryTransfer(
        stories=app[STORY_STORE],
        interactions=app[INTERACTION_STORE],
        entities=app[ENTITY_STORE],
        connections=app[CONNECTION_VIEW],
        changes=app[CHANGES],
        quotas=app[QUOTAS],
        tests=app[TEST_STORE],
        knowledge=app[KNOWLEDGE_STORE],
    )
    app[TRANSFER_WORK] = FairWork(TRANSFER_THREADS, "transfer")
    yield
    app[TRANSFER_WORK].close()
