"""The compiled stories' application keys."""

from aiohttp import web

from bot_api.story_cache.cache import StoryCache
from bot_api.story_cache.repository import VectorStore
from bot_api.story_cache.vectors import PhraseVectorService

STORY_CACHE = web.AppKey("story_cache", StoryCache)
PHRASE_VECTORS = web.AppKey[PhraseVectorService | None]("phrase_vectors")
"""The semantic stage's vectors and encoder; None when SEMANTIC_MATCHING is off."""
VECTOR_STORE = web.AppKey[VectorStore]("vector_store")
"""The stored phrase vectors, opened with the semantic stage off too: a story's deletion
takes the story off those it marks."""
