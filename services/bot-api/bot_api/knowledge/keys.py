"""The knowledge feature's application keys."""

from aiohttp import web

from bot_api.knowledge.cache import KnowledgeCache
from bot_api.knowledge.completions import ChatCompletions
from bot_api.knowledge.repository import KnowledgeRepository
from bot_api.knowledge.service import KnowledgeService

KNOWLEDGE_STORE = web.AppKey("knowledge_store", KnowledgeRepository)
KNOWLEDGE_CACHE = web.AppKey("knowledge_cache", KnowledgeCache)
KNOWLEDGE = web.AppKey("knowledge", KnowledgeService)
KNOWLEDGE_LLM = web.AppKey[ChatCompletions | None]("knowledge_llm")
"""The deployment's LLM (`LLM_BASE_URL`), None when it has none."""
