"""The knowledge feature's setup step (its repository is made with the others, in
app.py, as the story document carries FAQ pairs): its cache (which hears the changes of
the story's documents), with the semantic stage the passage vectors computed in the
background (the passages left without one queued again), its use cases and the
deployment's LLM's HTTP session, when it has one."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.background import Drain
from bot_api.changes import Handler, KnowledgeEdited
from bot_api.encoding.e5_small import E5SmallEncoder
from bot_api.keys import CHANGES, CONFIG, QUOTAS
from bot_api.knowledge.cache import KnowledgeCache
from bot_api.knowledge.completions import ChatCompletions
from bot_api.knowledge.fetching import PageFetcher
from bot_api.knowledge.keys import KNOWLEDGE, KNOWLEDGE_CACHE, KNOWLEDGE_LLM, KNOWLEDGE_STORE
from bot_api.knowledge.service import KnowledgeService
from bot_api.knowledge.vectors import PassageVectors
from bot_api.stories.keys import STORY_STORE
from shared.fair_work import FairWork

THREADS = 1
"""Cutting documents into passages and building a story's index is pure Python: it holds
the interpreter, so a second thread would only wait for it; one job of an account at a
time, the next account's between two."""


async def setup(app: web.Application) -> AsyncIterator[None]:
    store = app[KNOWLEDGE_STORE]
    work = FairWork(THREADS, "knowledge")
    changes = app[CHANGES]
    vectors = None
    if app[CONFIG].semantic_matching:

        async def landed(account_id: str, story_id: str) -> None:
            await changes.announce(KnowledgeEdited(account_id, story_id))

        vectors = PassageVectors(store, E5SmallEncoder(), landed)
    cache = KnowledgeCache(store, work, vectors)
    fetcher = PageFetcher(app[CONFIG].webhook_allow)
    await fetcher.start()
    changes.handle(Handler.KNOWLEDGE, cache)
    app[KNOWLEDGE_CACHE] = cache
    app[KNOWLEDGE] = KnowledgeService(
        stories=app[STORY_STORE],
        knowledge=store,
        changes=app[CHANGES],
        quotas=app[QUOTAS],
        work=work,
        fetcher=fetcher,
        vectors=vectors,
    )
    config = app[CONFIG]
    llm = None
    if config.llm_base_url:
        llm = ChatCompletions(
            config.llm_base_url, config.llm_api_key, config.llm_model, config.llm_timeout_seconds
        )
        await llm.start()
    app[KNOWLEDGE_LLM] = llm
    resuming = None if vectors is None else Drain(vectors.resume)
    if resuming is not None:
        resuming.wake()
    yield
    if resuming is not None:
        await resuming.close()
    if vectors is not None:
        await vectors.close()
    if llm is not None:
        await llm.close()
    await fetcher.close()
    work.close()
