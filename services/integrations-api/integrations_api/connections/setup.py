"""The webhook connections' setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from integrations_api.connections.keys import CONNECTION_BACKENDS
from integrations_api.connections.repository import ConnectionRepository
from integrations_api.connections.service import ConnectionBackends
from integrations_api.stories.keys import STORY_DIRECTORY
from shared.keys import CONFIG, DATABASE, OUTBOX


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The repository with its indexes, and what the use cases work with: the story
    directory and the outbox, each write's event."""
    config = app[CONFIG]
    connections = ConnectionRepository(app[DATABASE])
    await connections.ensure_indexes()
    app[CONNECTION_BACKENDS] = ConnectionBackends(
        connections, app[STORY_DIRECTORY], app[OUTBOX], config.subjects, config.quota_connections
    )
    yield
