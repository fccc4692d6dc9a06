"""The misses inbox's setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.changes import Handler
from bot_api.inbox.clustering import InboxClusterings
from bot_api.inbox.keys import INBOX, INBOX_SNAPSHOTS, INBOX_STORE
from bot_api.inbox.repository import InboxRepository
from bot_api.inbox.service import InboxService
from bot_api.inbox.snapshots import InboxSnapshotRepository
from bot_api.interactions.keys import INTERACTIONS
from bot_api.keys import CHANGES, DATABASE
from bot_api.knowledge.keys import KNOWLEDGE_CACHE
from bot_api.stories.keys import STORY_STORE
from bot_api.story_cache.keys import PHRASE_VECTORS, STORY_CACHE


async def setup(app: web.Application) -> AsyncIterator[None]:
    """Its reads of the turns and its ignored texts, each story's inbox as last read whole
    (its snapshot), the clusterings it keeps, the use cases (a handler of the change feed:
    a story's deletion or a conversation's erasure drops what it kept of it)."""
    repository = InboxRepository(app[DATABASE])
    snapshots = InboxSnapshotRepository(app[DATABASE])
    for indexed in (repository, snapshots):
        await indexed.ensure_indexes()
    clusterings = InboxClusterings(snapshots)
    vectors = app[PHRASE_VECTORS]
    app[INBOX] = InboxService(
        story_records=app[STORY_STORE],
        inbox=repository,
        snapshots=snapshots,
        interactions=app[INTERACTIONS],
        stories=app[STORY_CACHE],
        clusterings=clusterings,
        encoders=None if vectors is None else vectors.encoders,
        knowledge=app[KNOWLEDGE_CACHE],
    )
    app[CHANGES].handle(Handler.INBOX, app[INBOX])
    app[INBOX_STORE], app[INBOX_SNAPSHOTS] = repository, snapshots
    yield
    await app[INBOX].warming.close()
    await clusterings.close()
