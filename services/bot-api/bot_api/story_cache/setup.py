"""The compiled stories' setup step: the phrase vectors (with the semantic stage), the
cache, and the listeners of the change feed that keep both current."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.changes import Handler
from bot_api.encoding.e5_small import E5SmallEncoder
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.encoding.use_and_e5 import UseAndE5Encoder
from bot_api.encoding.use_multilingual import UseMultilingualEncoder
from bot_api.engine.semantic import Encoders
from bot_api.entities.keys import ENTITY_STORE
from bot_api.interactions.keys import INTERACTION_STORE
from bot_api.keys import CHANGES, CONFIG, DATABASE, REPLICAS
from bot_api.stories.keys import STORY_STORE
from bot_api.story_cache.cache import StoryCache
from bot_api.story_cache.keys import PHRASE_VECTORS, STORY_CACHE, VECTOR_STORE
from bot_api.story_cache.repository import PhraseVectorRepository
from bot_api.story_cache.sweep import VectorSweeper
from bot_api.story_cache.vectors import PhraseVectorService
from bot_api.story_cache.written import WrittenPhrases
from bot_api.versions.keys import VERSION_STORE
from bot_api.versions.schemas import StoryDocuments


async def setup(app: web.Application) -> AsyncIterator[None]:
    config, changes = app[CONFIG], app[CHANGES]
    stories, interactions, entities = app[STORY_STORE], app[INTERACTION_STORE], app[ENTITY_STORE]
    vectors = sweeper = None
    # Opened without the semantic stage too: a story's deletion takes it off its vectors.
    vector_store = PhraseVectorRepository(app[DATABASE])
    await vector_store.ensure_indexes()
    if config.semantic_matching:
        use = UseMultilingualEncoder()
        encoders = Encoders((MiniLmEncoder(), use, UseAndE5Encoder(use, E5SmallEncoder())))
        vectors = PhraseVectorService(
            vector_store,
            encoders,
            live_replicas=app[REPLICAS].live,
            wait_seconds=config.phrase_vector_wait_seconds,
        )
        sweeper = VectorSweeper(
            stories=stories,
            interactions=interactions,
            entities=entities,
            store=vector_store,
            vectors=vectors,
        )
    cache = StoryCache(
        stories=stories,
        interactions=interactions,
        entities=entities,
        versions=app[VERSION_STORE],
        vectors=vectors,
        budget_bytes=config.story_cache_mb * 2**20,
        read_version=StoryDocuments().read,
        request_budget=config.request_budget_seconds,
    )
    changes.handle(Handler.STORY_CACHE, cache)
    written = (
        None
        if vectors is None
        else WrittenPhrases(
            stories=stories,
            interactions=interactions,
            entities=entities,
            vectors=vectors,
            landed=cache.vectors_landed,
        )
    )
    if written is not None and sweeper is not None:
        changes.handle(Handler.WRITTEN_PHRASES, written)
        changes.handle(Handler.VECTOR_SWEEPER, sweeper)
    app[STORY_CACHE], app[PHRASE_VECTORS], app[VECTOR_STORE] = cache, vectors, vector_store
    yield
    cache.close()
    if written is not None:
        await written.close()
    if sweeper is not None:
        await sweeper.close()
    if vectors is not None:
        await vectors.close()
