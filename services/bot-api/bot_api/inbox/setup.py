"""The misses inbox's setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.inbox.clustering import InboxClusterings
from bot_api.inbox.keys import INBOX
from bot_api.inbox.repository import InboxRepository
from bot_api.inbox.service import InboxService
from bot_api.interactions.keys import INTERACTIONS
from bot_api.keys import CHANGES, DATABASE
from bot_api.stories.keys import STORY_STORE
from bot_api.story_cache.keys import PHRASE_VECTORS, STORY_CACHE


async def setup(app: web.Application) -> AsyncIterator[None]:
    """Its reads of the turns, the clusterings it keeps, the use cases (a listener of the
    change feed: a story's deletion drops what it kept of it)."""
    repository = InboxRepository(app[DATABASE])
    await repository.ensure_indexes()
    clusterings = InboxClusterings()
    vectors = app[PHRASE_VECTORS]
    app[INBOX] = InboxService(
        story_records=app[STORY_STORE],
        inbox=repository,
        interactions=app[INTERACTIONS],
        stories=app[STORY_CACHE],
        clusterings=clusterings,
        encoders=None if vectors is None else vectors.encoders,
    )
    app[CHANGES].listen(app[INBOX])
    yield
    await clusterings.close()
