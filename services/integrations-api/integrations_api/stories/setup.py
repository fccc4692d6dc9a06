"""The stories' setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from integrations_api.stories.directory import NatsStoryDirectory
from integrations_api.stories.keys import STORY_DIRECTORY
from shared.keys import CONFIG, NATS


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The directory that asks bot-api a story's name over NATS, once NATS is open."""
    app[STORY_DIRECTORY] = NatsStoryDirectory(app[NATS], app[CONFIG].subjects)
    yield
