"""/query's setup step."""

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta

from aiohttp import web

from bot_api.connections.keys import CONNECTION_VIEW
from bot_api.history.keys import RECORDER
from bot_api.keys import CHANGES, CONFIG, OUTBOX
from bot_api.knowledge.keys import KNOWLEDGE_CACHE, KNOWLEDGE_LLM
from bot_api.query.keys import CONVERSATIONS, SESSION_STORE
from bot_api.query.service import ConversationService, turn_threads
from bot_api.query.webhooks.caller import WebhookCaller
from bot_api.query.webhooks.delivery import Deliveries
from bot_api.story_cache.keys import PHRASE_VECTORS, STORY_CACHE
from shared.events import DeliveryResult, encode


def delivery_reporter(app: web.Application) -> Callable[[DeliveryResult], Awaitable[None]]:
    async def report(result: DeliveryResult) -> None:
        await app[OUTBOX].put(app[CONFIG].subjects.delivery_result, encode(result))

    return report


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The conversation service, with its webhook caller's HTTP session."""
    config = app[CONFIG]
    caller = WebhookCaller(config.webhook_allow)
    await caller.start()
    deliveries = Deliveries(
        caller=caller, connections=app[CONNECTION_VIEW], report=delivery_reporter(app)
    )
    vectors = app[PHRASE_VECTORS]
    turns = turn_threads()
    app[CONVERSATIONS] = ConversationService(
        stories=app[STORY_CACHE],
        sessions=app[SESSION_STORE],
        deliveries=deliveries,
        idle_timeout=timedelta(seconds=config.session_idle_seconds),
        handoff_idle=timedelta(seconds=config.handoff_idle_seconds),
        encoders=None if vectors is None else vectors.encoders,
        turns=turns,
        recorder=app[RECORDER],
        knowledge=app[KNOWLEDGE_CACHE],
        llm=app[KNOWLEDGE_LLM],
        changes=app[CHANGES],
    )
    yield
    await caller.close()
    turns.shutdown(wait=False, cancel_futures=True)
