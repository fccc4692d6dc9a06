"""bot-api's application: what it opens, in order, and the routes it serves."""

from collections.abc import AsyncIterator
from datetime import timedelta

from aiohttp import web

from bot_api.analytics import views as analytics
from bot_api.analytics.counters import AnalyticsCounters
from bot_api.analytics.keys import ANALYTICS, ANALYTICS_REPORTS
from bot_api.analytics.repository import AnalyticsRepository
from bot_api.analytics.service import AnalyticsReports
from bot_api.changes import ChangeFeed
from bot_api.common.views import MANAGEMENT_STATUS_FIELD
from bot_api.connections.keys import CONNECTION_VIEW
from bot_api.connections.repository import ConnectionViewRepository
from bot_api.console.pages import add_console
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.encoding.use_multilingual import UseMultilingualEncoder
from bot_api.engine.semantic import Encoders
from bot_api.entities import views as entities
from bot_api.entities.keys import ENTITIES
from bot_api.entities.repository import EntityRepository
from bot_api.entities.service import EntityService
from bot_api.handoffs import views as handoffs
from bot_api.handoffs.keys import HANDOFFS
from bot_api.handoffs.service import HandoffService
from bot_api.history import views as history
from bot_api.history.keys import HISTORY, RECORDER, TURN_STORE
from bot_api.history.recorder import TurnRecorder
from bot_api.history.repository import TurnRepository
from bot_api.history.service import HistoryService
from bot_api.inbox import views as inbox
from bot_api.inbox.clustering import InboxClusterings
from bot_api.inbox.keys import INBOX
from bot_api.inbox.repository import InboxRepository
from bot_api.inbox.service import InboxService
from bot_api.interactions import views as interactions
from bot_api.interactions.keys import INTERACTION_STORE, INTERACTIONS
from bot_api.interactions.repository import InteractionRepository
from bot_api.interactions.service import InteractionService
from bot_api.keys import ACCOUNTS, CHANGES, CONFIG, DATABASE, NATS
from bot_api.messaging import (
    NatsConnectionDirectory,
    channel_turns,
    connection_events,
    delivery_reporter,
    story_events,
    story_lookups,
)
from bot_api.query import views as query
from bot_api.query.keys import CONVERSATIONS, SESSION_STORE
from bot_api.query.repository import SessionRepository
from bot_api.query.service import ConversationService, turn_threads
from bot_api.query.webhooks.caller import WebhookCaller
from bot_api.query.webhooks.delivery import Deliveries
from bot_api.quotas import StoredQuotas
from bot_api.stories import views as stories
from bot_api.stories.keys import STORIES, STORY_STORE
from bot_api.stories.repository import StoryRepository
from bot_api.stories.service import StoryService
from bot_api.story_cache.cache import StoryCache
from bot_api.story_cache.keys import PHRASE_VECTORS, STORY_CACHE
from bot_api.story_cache.repository import PhraseVectorRepository
from bot_api.story_cache.sweep import VectorSweeper
from bot_api.story_cache.vectors import PhraseVectorService
from bot_api.story_cache.written import WrittenPhrases
from bot_api.story_tests import views as conversation_tests
from bot_api.story_tests.keys import CONVERSATION_TESTS
from bot_api.story_tests.repository import ConversationTestRepository
from bot_api.story_tests.service import ConversationTestService
from bot_api.transfer import views as transfer
from bot_api.transfer.keys import TRANSFER, TRANSFER_WORK
from bot_api.transfer.service import StoryTransfer
from bot_api.versions import views as versions
from bot_api.versions.keys import VERSIONS
from bot_api.versions.repository import VersionRepository
from bot_api.versions.schemas import StoryDocuments
from bot_api.versions.service import VersionService
from shared.config import Config
from shared.fair_work import FairWork
from shared.service import (
    add_meta_routes,
    mongo_context,
    nats_context,
    new_app,
    outbox_context,
    replicas_context,
    rotations_context,
)

TRANSFER_THREADS = 2
"""Threads reading imports and writing exports and versions: one account's jobs run on
one of them at a time (FairWork), so another account's job finds the other free at once
even while a long one runs up to its next checkpoint."""

ANALYTICS_THREADS = 2
"""Threads building analytics reports, one account's at a time on one of them."""


async def management(app: web.Application) -> AsyncIterator[None]:
    """The repositories, the change feed with the story cache listening, and the
    management use cases (which ask integrations-api about connections over NATS; the
    conversation tests' listen to the feed, so an edit runs the story's tests)."""
    database = app[DATABASE]
    stories, interactions, entities = (
        StoryRepository(database),
        InteractionRepository(database),
        EntityRepository(database),
    )
    sessions, connections = SessionRepository(database), ConnectionViewRepository(database)
    turns, versions = TurnRepository(database), VersionRepository(database)
    for repository in (stories, interactions, entities, sessions, connections, turns, versions):
        await repository.ensure_indexes()
    config = app[CONFIG]
    changes = ChangeFeed()
    vectors = sweeper = None
    if config.semantic_matching:
        vector_store = PhraseVectorRepository(app[DATABASE])
        vectors = PhraseVectorService(
            vector_store, Encoders((MiniLmEncoder(), UseMultilingualEncoder()))
        )
        sweeper = VectorSweeper(
            stories=stories,
            interactions=interactions,
            entities=entities,
            store=vector_store,
            vectors=vectors,
        )
        await vector_store.ensure_indexes()
    documents = StoryDocuments()
    cache = StoryCache(
        stories=stories,
        interactions=interactions,
        entities=entities,
        versions=versions,
        vectors=vectors,
        budget_bytes=config.story_cache_mb * 2**20,
        read_version=documents.read,
        request_budget=config.request_budget_seconds,
    )
    changes.listen(cache)
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
    for listener in (written, sweeper):
        if listener is not None:
            changes.listen(listener)
    app[STORY_STORE], app[INTERACTION_STORE] = stories, interactions
    app[SESSION_STORE], app[CONNECTION_VIEW], app[TURN_STORE] = sessions, connections, turns
    app[CHANGES], app[STORY_CACHE] = changes, cache
    app[PHRASE_VECTORS] = vectors
    quotas = StoredQuotas(config, app[ACCOUNTS])
    directory = NatsConnectionDirectory(app[NATS], config.subjects)
    app[INTERACTIONS] = InteractionService(
        stories=stories,
        interactions=interactions,
        entities=entities,
        changes=changes,
        connections=directory,
        quotas=quotas,
    )
    app[ENTITIES] = EntityService(
        stories=stories,
        interactions=interactions,
        entities=entities,
        changes=changes,
        quotas=quotas,
    )
    tests = ConversationTestRepository(app[DATABASE])
    await tests.ensure_indexes()
    app[TRANSFER] = StoryTransfer(
        stories=stories,
        interactions=interactions,
        entities=entities,
        connections=connections,
        changes=changes,
        quotas=quotas,
        tests=tests,
    )
    app[TRANSFER_WORK] = FairWork(TRANSFER_THREADS, "transfer")
    app[VERSIONS] = VersionService(
        stories=stories,
        interactions=interactions,
        entities=entities,
        versions=versions,
        changes=changes,
        quotas=quotas,
        transfer=app[TRANSFER],
        documents=documents,
        work=app[TRANSFER_WORK],
        limit=config.request_budget_seconds,
    )
    # One thread runs conversation tests, one test a job (it remembers what it encoded,
    # engine/remembering.py): another account's test runs between two of a large run.
    tests_work = FairWork(1, "tests")
    app[CONVERSATION_TESTS] = ConversationTestService(
        story_records=stories,
        tests=tests,
        stories=cache,
        work=tests_work,
        limit=config.request_budget_seconds,
        encoders=None if vectors is None else vectors.encoders,
    )
    changes.listen(app[CONVERSATION_TESTS])
    app[STORIES] = StoryService(
        stories=stories,
        interactions=interactions,
        sessions=sessions,
        turns=turns,
        versions=versions,
        changes=changes,
        quotas=quotas,
        publish_check=app[CONVERSATION_TESTS],
        awaiting_meaning=None if vectors is None else vectors.waiting,
    )
    inbox_store = InboxRepository(app[DATABASE])
    await inbox_store.ensure_indexes()
    clusterings = InboxClusterings()
    app[INBOX] = InboxService(
        story_records=stories,
        inbox=inbox_store,
        interactions=app[INTERACTIONS],
        stories=cache,
        clusterings=clusterings,
        encoders=None if vectors is None else vectors.encoders,
    )
    changes.listen(app[INBOX])
    yield
    await app[CONVERSATION_TESTS].close()
    tests_work.close()
    app[TRANSFER_WORK].close()
    await clusterings.close()
    cache.close()
    if written is not None:
        await written.close()
    if sweeper is not None:
        await sweeper.close()
    if vectors is not None:
        await vectors.close()


async def recording(app: web.Application) -> AsyncIterator[None]:
    """The recorder of /query turns, telling the analytics counters of each batch stored; what
    is still queued at shutdown gets a few seconds to be written. The history's use cases
    hold it: an erasure drops the session's turns still queued."""
    recorder = TurnRecorder(app[TURN_STORE], listeners=[app[ANALYTICS]])
    app[RECORDER] = recorder
    app[HISTORY] = HistoryService(
        stories=app[STORY_STORE],
        sessions=app[SESSION_STORE],
        turns=app[TURN_STORE],
        recorder=recorder,
    )
    yield
    await recorder.close()


async def conversations(app: web.Application) -> AsyncIterator[None]:
    """The /query service, with its webhook caller's HTTP session, and the person's side
    of handoffs (which records in the history too)."""
    caller = WebhookCaller(app[CONFIG].webhook_allow)
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
        idle_timeout=timedelta(seconds=app[CONFIG].session_idle_seconds),
        handoff_idle=timedelta(seconds=app[CONFIG].handoff_idle_seconds),
        encoders=None if vectors is None else vectors.encoders,
        turns=turns,
        recorder=app[RECORDER],
    )
    app[HANDOFFS] = HandoffService(
        stories=app[STORY_STORE],
        sessions=app[SESSION_STORE],
        changes=app[CHANGES],
        recorder=app[RECORDER],
        session_idle=timedelta(seconds=app[CONFIG].session_idle_seconds),
        handoff_idle=timedelta(seconds=app[CONFIG].handoff_idle_seconds),
    )
    yield
    await caller.close()
    turns.shutdown(wait=False, cancel_futures=True)


async def counters(app: web.Application) -> AsyncIterator[None]:
    """The analytics counters (a listener of the history recorder's batches and of
    story deletions) and their reports."""
    repository = AnalyticsRepository(app[DATABASE])
    await repository.ensure_indexes()
    app[ANALYTICS] = AnalyticsCounters(repository)
    app[CHANGES].listen(app[ANALYTICS])
    work = FairWork(ANALYTICS_THREADS, "analytics")
    app[ANALYTICS_REPORTS] = AnalyticsReports(
        stories=app[STORY_STORE],
        interactions=app[INTERACTION_STORE],
        counters=repository,
        work=work,
        limit=app[CONFIG].request_budget_seconds,
    )
    yield
    work.close()


def create_app(config: Config) -> web.Application:
    app = new_app(config, status_field=MANAGEMENT_STATUS_FIELD, public_paths=frozenset({"/query"}))
    app.cleanup_ctx.extend(
        [
            mongo_context(config.bot_database),
            nats_context("bot-api"),
            replicas_context("bot-api"),
            rotations_context(),
            outbox_context(),
            management,
            counters,
            recording,
            conversations,
            story_lookups,
            channel_turns,
            story_events,
            connection_events,
        ]
    )
    app.middlewares.append(conversation_tests.tests_link)
    add_meta_routes(app, "Parley bot-api")
    for routes in (
        stories.routes,
        entities.routes,
        interactions.routes,
        query.routes,
        history.routes,
        handoffs.routes,
        analytics.routes,
        inbox.routes,
        transfer.routes,
        versions.routes,
        conversation_tests.routes,
    ):
        app.router.add_routes(routes)
    add_console(app)
    return app
