"""The knowledge feature's application keys."""

from aiohttp import web

from bot_api.knowledge.cache import KnowledgeCache
from bot_api.knowledge.repository import KnowledgeRepository
from bot_api.knowledge.service import KnowledgeService

KNOWLEDGE_STORE = web.AppKey("knowledge_store", KnowledgeRepository)
KNOWLEDGE_CACHE = web.AppKey("knowledge_cache", KnowledgeCache)
KNOWLEDGE = web.AppKey("knowledge", KnowledgeService)
