"""The knowledge feature's setup step (its repository is made with the others, in
app.py, as the story document carries FAQ pairs): its cache (which hears the
changes of the story's documents), its use cases and the deployment's LLM's HTTP
session, when it has one."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.changes import Handler
from bot_api.keys import CHANGES, CONFIG, QUOTAS
from bot_api.knowledge.cache import KnowledgeCache
from bot_api.knowledge.completions import ChatCompletions
from bot_api.knowledge.fetching import PageFetcher
from bot_api.knowledge.keys import KNOWLEDGE, KNOWLEDGE_CACHE, KNOWLEDGE_LLM, KNOWLEDGE_STORE
from bot_api.knowledge.service import KnowledgeService
from bot_api.stories.keys import STORY_STORE
from shared.fair_work import FairWork

THREADS = 1
"""Cutting documents into passages and building a story's index is pure Python: it holds
the interpreter, so a second thread would only wait for it; one job of an account at a
time, the next account's between two."""


async def setup(app: web.Application) -> AsyncIterator[None]:
    store = app[KNOWLEDGE_STORE]
    work = FairWork(THREADS, "knowledge")
    cache = KnowledgeCache(store, work)
    fetcher = PageFetcher(app[CONFIG].webhook_allow)
    await fetcher.start()
    app[CHANGES].handle(Handler.KNOWLEDGE, cache)
    app[KNOWLEDGE_CACHE] = cache
    app[KNOWLEDGE] = KnowledgeService(
        stories=app[STORY_STORE],
        knowledge=store,
        changes=app[CHANGES],
        quotas=app[QUOTAS],
        work=work,
        fetcher=fetcher,
    )
    config = app[CONFIG]
    llm = None
    if config.llm_base_url:
        llm = ChatCompletions(
            config.llm_base_url, config.llm_api_key, config.llm_model, config.llm_timeout_seconds
        )
        await llm.start()
    app[KNOWLEDGE_LLM] = llm
    yield
    if llm is not None:
        await llm.close()
    await fetcher.close()
    work.close()
