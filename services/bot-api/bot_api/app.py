"""bot-api's application: what it opens, in order, and the routes it serves."""

from collections.abc import AsyncIterator
from datetime import timedelta

from aiohttp import web

from bot_api.api import (
    analytics,
    conversation_tests,
    entities,
    handoffs,
    history,
    inbox,
    interactions,
    query,
    stories,
    transfer,
    versions,
)
from bot_api.api.common import MANAGEMENT_STATUS_FIELD
from bot_api.changes import ChangeFeed, Handler
from bot_api.console.pages import add_console
from bot_api.conversations.analytics import AnalyticsCounters
from bot_api.conversations.answering import ConversationService, turn_threads
from bot_api.conversations.cache import StoryCache
from bot_api.conversations.history import TurnRecorder
from bot_api.conversations.sweep import VectorSweeper
from bot_api.conversations.vectors import PhraseVectorService
from bot_api.conversations.written import WrittenPhrases
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.encoding.use_multilingual import UseMultilingualEncoder
from bot_api.engine.semantic import Encoders
from bot_api.keys import (
    ACCOUNTS,
    ANALYTICS,
    ANALYTICS_REPORTS,
    ANALYTICS_STORE,
    CHANGES,
    CONFIG,
    CONVERSATION_TESTS,
    CONVERSATIONS,
    DATABASE,
    ENTITIES,
    HANDOFFS,
    HISTORY,
    INBOX,
    INTERACTIONS,
    NATS,
    PHRASE_VECTORS,
    RECORDER,
    STORES,
    STORIES,
    STORY_CACHE,
    TRANSFER,
    TRANSFER_WORK,
    VERSIONS,
)
from bot_api.management.analytics import AnalyticsReports
from bot_api.management.conversation_tests import ConversationTestService
from bot_api.management.entities import EntityService
from bot_api.management.handoffs import HandoffService
from bot_api.management.history import HistoryService
from bot_api.management.inbox import InboxService
from bot_api.management.inbox_clustering import InboxClusterings
from bot_api.management.interactions import InteractionService
from bot_api.management.quotas import StoredQuotas
from bot_api.management.stories import StoryService
from bot_api.management.transfer import StoryTransfer
from bot_api.management.versions import VersionService
from bot_api.messaging import (
    NatsConnectionDirectory,
    channel_turns,
    connection_events,
    delivery_reporter,
    story_events,
    story_lookups,
)
from bot_api.schemas.versions import StoryDocuments
from bot_api.storage import Stores
from bot_api.storage.analytics import AnalyticsRepository
from bot_api.storage.conversation_tests import ConversationTestRepository
from bot_api.storage.inbox import InboxRepository
from bot_api.storage.inbox_snapshots import InboxSnapshotRepository
from bot_api.storage.vectors import PhraseVectorRepository
from bot_api.webhooks.caller import WebhookCaller
from bot_api.webhooks.delivery import Deliveries
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
    """The repositories, the change feed with its handlers of this process (the table of
    who hears what: `changes.HEARD_BY`), and the management use cases (which ask
    integrations-api about connections over NATS)."""
    stores = Stores.open(app[DATABASE])
    await stores.ensure_indexes()
    config = app[CONFIG]
    changes = ChangeFeed()
    vectors = sweeper = None
    # Opened without the semantic stage too: a story's deletion takes it off its vectors.
    vector_store = PhraseVectorRepository(app[DATABASE])
    await vector_store.ensure_indexes()
    if config.semantic_matching:
        vectors = PhraseVectorService(
            vector_store, Encoders((MiniLmEncoder(), UseMultilingualEncoder()))
        )
        sweeper = VectorSweeper(stores, vector_store, vectors)
    documents = StoryDocuments()
    cache = StoryCache(
        stores,
        vectors,
        budget_bytes=config.story_cache_mb * 2**20,
        read_version=documents.read,
        request_budget=config.request_budget_seconds,
    )
    changes.handle(Handler.STORY_CACHE, cache)
    written = None if vectors is None else WrittenPhrases(stores, vectors, cache.vectors_landed)
    if written is not None and sweeper is not None:
        changes.handle(Handler.WRITTEN_PHRASES, written)
        changes.handle(Handler.VECTOR_SWEEPER, sweeper)
    app[STORES], app[CHANGES], app[STORY_CACHE] = stores, changes, cache
    app[PHRASE_VECTORS] = vectors
    quotas = StoredQuotas(config, app[ACCOUNTS])
    directory = NatsConnectionDirectory(app[NATS], config.subjects)
    app[INTERACTIONS] = InteractionService(
        stores=stores, changes=changes, connections=directory, quotas=quotas
    )
    app[ENTITIES] = EntityService(stores=stores, changes=changes, quotas=quotas)
    tests = ConversationTestRepository(app[DATABASE])
    await tests.ensure_indexes()
    app[TRANSFER] = StoryTransfer(stores=stores, changes=changes, quotas=quotas, tests=tests)
    app[TRANSFER_WORK] = FairWork(TRANSFER_THREADS, "transfer")
    app[VERSIONS] = VersionService(
        stores=stores,
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
        stores=stores,
        tests=tests,
        stories=cache,
        work=tests_work,
        limit=config.request_budget_seconds,
        encoders=None if vectors is None else vectors.encoders,
    )
    changes.handle(Handler.CONVERSATION_TESTS, app[CONVERSATION_TESTS])
    inbox_store = InboxRepository(app[DATABASE])
    snapshots = InboxSnapshotRepository(app[DATABASE])
    for indexed in (inbox_store, snapshots):
        await indexed.ensure_indexes()
    app[ANALYTICS_STORE] = AnalyticsRepository(app[DATABASE])
    await app[ANALYTICS_STORE].ensure_indexes()
    app[STORIES] = StoryService(
        stores=stores,
        tests=tests,
        inbox=inbox_store,
        inbox_snapshots=snapshots,
        analytics=app[ANALYTICS_STORE],
        vectors=vector_store,
        changes=changes,
        quotas=quotas,
        publish_check=app[CONVERSATION_TESTS],
        awaiting_meaning=None if vectors is None else vectors.waiting,
    )
    clusterings = InboxClusterings(snapshots)
    app[INBOX] = InboxService(
        stores=stores,
        inbox=inbox_store,
        snapshots=snapshots,
        interactions=app[INTERACTIONS],
        stories=cache,
        clusterings=clusterings,
        encoders=None if vectors is None else vectors.encoders,
    )
    changes.handle(Handler.INBOX, app[INBOX])
    yield
    await app[CONVERSATION_TESTS].close()
    tests_work.close()
    app[TRANSFER_WORK].close()
    await app[INBOX].warming.close()
    await clusterings.close()
    cache.close()
    if written is not None:
        await written.close()
    if sweeper is not None:
        await sweeper.close()
    if vectors is not None:
        await vectors.close()


async def recording(app: web.Application) -> AsyncIterator[None]:
    """The recorder of /query turns, telling the analytics counters and the inbox (which
    reads ahead the inbox of a story with new misses) of each batch stored; what
    is still queued at shutdown gets a few seconds to be written. The history's use cases
    hold it: an erasure drops the session's turns still queued."""
    recorder = TurnRecorder(app[STORES].turns, listeners=[app[ANALYTICS], app[INBOX].warming])
    app[RECORDER] = recorder
    app[HISTORY] = HistoryService(app[STORES], recorder, app[CHANGES], app[INBOX].snapshots)
    yield
    await recorder.close()


async def conversations(app: web.Application) -> AsyncIterator[None]:
    """The /query service, with its webhook caller's HTTP session, and the person's side
    of handoffs (which records in the history too)."""
    caller = WebhookCaller(app[CONFIG].webhook_allow)
    await caller.start()
    deliveries = Deliveries(
        caller=caller, connections=app[STORES].connections, report=delivery_reporter(app)
    )
    vectors = app[PHRASE_VECTORS]
    turns = turn_threads()
    app[CONVERSATIONS] = ConversationService(
        stories=app[STORY_CACHE],
        sessions=app[STORES].sessions,
        deliveries=deliveries,
        idle_timeout=timedelta(seconds=app[CONFIG].session_idle_seconds),
        handoff_idle=timedelta(seconds=app[CONFIG].handoff_idle_seconds),
        encoders=None if vectors is None else vectors.encoders,
        turns=turns,
        recorder=app[RECORDER],
    )
    app[HANDOFFS] = HandoffService(
        stores=app[STORES],
        changes=app[CHANGES],
        recorder=app[RECORDER],
        session_idle=timedelta(seconds=app[CONFIG].session_idle_seconds),
        handoff_idle=timedelta(seconds=app[CONFIG].handoff_idle_seconds),
    )
    yield
    await caller.close()
    turns.shutdown(wait=False, cancel_futures=True)


async def counters(app: web.Application) -> AsyncIterator[None]:
    """The analytics counters (a listener of the history recorder's batches) and their
    reports."""
    app[ANALYTICS] = AnalyticsCounters(app[ANALYTICS_STORE])
    work = FairWork(ANALYTICS_THREADS, "analytics")
    app[ANALYTICS_REPORTS] = AnalyticsReports(
        stores=app[STORES],
        counters=app[ANALYTICS_STORE],
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
