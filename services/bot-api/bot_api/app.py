"""bot-api's application: what it opens, in order, and the routes it serves.

Each feature's setup step (`<feature>/setup.py`) makes its services from the keys of the
steps before it. This module builds what reaches across the features instead: the
repositories every feature reads, the change feed, the quotas and the connection
directory; and the use cases that take what features above them in the layout table
make: the entities' (which ask the interactions which use an entity), the conversation
tests' (which replay on the compiled stories), the stories' (a delete empties the
collections of the story's interactions, sessions, turns and versions; a publish asks
the conversation tests) and the history's recorder (which tells the analytics counters of
each batch)."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.analytics import setup as analytics
from bot_api.analytics import views as analytics_views
from bot_api.analytics.keys import ANALYTICS, ANALYTICS_STORE
from bot_api.audit import views as audit_views
from bot_api.changes import ChangeFeed, Handler
from bot_api.common.views import MANAGEMENT_STATUS_FIELD
from bot_api.connections.keys import CONNECTION_VIEW
from bot_api.connections.repository import ConnectionViewRepository
from bot_api.console.pages import add_console
from bot_api.entities import views as entities_views
from bot_api.entities.keys import ENTITIES, ENTITY_STORE
from bot_api.entities.repository import EntityRepository
from bot_api.entities.service import EntityService
from bot_api.handoffs import setup as handoffs
from bot_api.handoffs import views as handoffs_views
from bot_api.history import views as history_views
from bot_api.history.keys import HISTORY, RECORDER, TURN_STORE
from bot_api.history.recorder import TurnRecorder
from bot_api.history.repository import TurnRepository
from bot_api.history.service import HistoryService
from bot_api.inbox import setup as inbox
from bot_api.inbox import views as inbox_views
from bot_api.inbox.keys import INBOX, INBOX_SNAPSHOTS, INBOX_STORE
from bot_api.interactions import setup as interactions
from bot_api.interactions import views as interactions_views
from bot_api.interactions.keys import CONNECTION_DIRECTORY, INTERACTION_STORE
from bot_api.interactions.repository import InteractionRepository
from bot_api.keys import ACCOUNTS, CHANGES, CONFIG, DATABASE, NATS, QUOTAS
from bot_api.knowledge import setup as knowledge
from bot_api.knowledge import views as knowledge_views
from bot_api.knowledge.keys import KNOWLEDGE_STORE
from bot_api.knowledge.repository import KnowledgeRepository
from bot_api.members import setup as members
from bot_api.members import views as members_views
from bot_api.messaging import (
    NatsConnectionDirectory,
    channel_turns,
    connection_events,
    story_events,
    story_lookups,
)
from bot_api.query import setup as query
from bot_api.query import views as query_views
from bot_api.query.keys import SESSION_STORE
from bot_api.query.repository import SessionRepository
from bot_api.quotas import StoredQuotas
from bot_api.signin import setup as signin
from bot_api.signin import views as signin_views
from bot_api.stories import views as stories_views
from bot_api.stories.keys import STORIES, STORY_STORE
from bot_api.stories.repository import StoryRepository
from bot_api.stories.service import StoryService
from bot_api.story_cache import setup as story_cache
from bot_api.story_cache.keys import PHRASE_VECTORS, STORY_CACHE, VECTOR_STORE
from bot_api.story_tests import views as story_tests_views
from bot_api.story_tests.keys import CONVERSATION_TESTS, TEST_STORE
from bot_api.story_tests.repository import ConversationTestRepository
from bot_api.story_tests.service import ConversationTestService
from bot_api.transfer import setup as transfer
from bot_api.transfer import views as transfer_views
from bot_api.versions import setup as versions
from bot_api.versions import views as versions_views
from bot_api.versions.keys import VERSION_STORE
from bot_api.versions.repository import VersionRepository
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


async def repositories(app: web.Application) -> AsyncIterator[None]:
    """The repositories the features share (their indexes made in this order), the change
    feed, the account quotas, and the directory through which interactions ask
    integrations-api whether a connection is the story's."""
    database, config = app[DATABASE], app[CONFIG]
    app[STORY_STORE] = StoryRepository(database)
    app[INTERACTION_STORE] = InteractionRepository(database)
    app[ENTITY_STORE] = EntityRepository(database)
    app[SESSION_STORE] = SessionRepository(database)
    app[CONNECTION_VIEW] = ConnectionViewRepository(database)
    app[TURN_STORE] = TurnRepository(database)
    app[VERSION_STORE] = VersionRepository(database)
    app[KNOWLEDGE_STORE] = KnowledgeRepository(database)
    for key in (
        STORY_STORE,
        INTERACTION_STORE,
        ENTITY_STORE,
        SESSION_STORE,
        CONNECTION_VIEW,
        TURN_STORE,
        VERSION_STORE,
        KNOWLEDGE_STORE,
    ):
        await app[key].ensure_indexes()
    app[CHANGES] = ChangeFeed()
    app[QUOTAS] = StoredQuotas(config, app[ACCOUNTS])
    app[CONNECTION_DIRECTORY] = NatsConnectionDirectory(app[NATS], config.subjects)
    yield


async def entity_service(app: web.Application) -> AsyncIterator[None]:
    """The entities' use cases, which ask the interactions which of them use an entity."""
    app[ENTITIES] = EntityService(
        stories=app[STORY_STORE],
        interactions=app[INTERACTION_STORE],
        entities=app[ENTITY_STORE],
        changes=app[CHANGES],
        quotas=app[QUOTAS],
    )
    yield


async def test_service(app: web.Application) -> AsyncIterator[None]:
    """The conversation tests' repository and use cases, listening to the change feed so that
    an edit runs the story's tests; they replay on the compiled stories, above them in the
    layout table (a story's document, which the cache compiles, carries its tests)."""
    tests = ConversationTestRepository(app[DATABASE])
    await tests.ensure_indexes()
    # One thread runs conversation tests, one test a job (it remembers what it encoded,
    # engine/remembering.py): another account's test runs between two of a large run.
    work = FairWork(1, "tests")
    vectors = app[PHRASE_VECTORS]
    service = ConversationTestService(
        story_records=app[STORY_STORE],
        tests=tests,
        stories=app[STORY_CACHE],
        work=work,
        limit=app[CONFIG].request_budget_seconds,
        encoders=None if vectors is None else vectors.encoders,
    )
    app[CHANGES].handle(Handler.CONVERSATION_TESTS, service)
    app[TEST_STORE], app[CONVERSATION_TESTS] = tests, service
    yield
    await service.close()
    work.close()


async def story_service(app: web.Application) -> AsyncIterator[None]:
    """The stories' use cases: a story's delete empties every collection of the story (in
    the order of docs/architecture.md "Deleting a story"); a publish asks the conversation
    tests first."""
    vectors = app[PHRASE_VECTORS]
    app[STORIES] = StoryService(
        stories=app[STORY_STORE],
        interactions=app[INTERACTION_STORE],
        sessions=app[SESSION_STORE],
        turns=app[TURN_STORE],
        versions=app[VERSION_STORE],
        tests=app[TEST_STORE],
        inbox=app[INBOX_STORE],
        inbox_snapshots=app[INBOX_SNAPSHOTS],
        analytics=app[ANALYTICS_STORE],
        vectors=app[VECTOR_STORE],
        knowledge=app[KNOWLEDGE_STORE],
        connections=app[CONNECTION_VIEW],
        changes=app[CHANGES],
        quotas=app[QUOTAS],
        publish_check=app[CONVERSATION_TESTS],
        awaiting_meaning=None if vectors is None else vectors.waiting,
    )
    yield


async def recording(app: web.Application) -> AsyncIterator[None]:
    """The recorder of /query turns, telling the analytics counters and the inbox (which
    reads ahead the inbox of a story with new misses) of each batch stored; what
    is still queued at shutdown gets a few seconds to be written. The history's use cases
    hold it: an erasure drops the session's turns still queued."""
    recorder = TurnRecorder(app[TURN_STORE], listeners=[app[ANALYTICS], app[INBOX].warming])
    app[RECORDER] = recorder
    app[HISTORY] = HistoryService(
        stories=app[STORY_STORE],
        sessions=app[SESSION_STORE],
        turns=app[TURN_STORE],
        recorder=recorder,
        changes=app[CHANGES],
        turn_copies=app[INBOX_SNAPSHOTS],
    )
    yield
    await recorder.close()


def create_app(config: Config) -> web.Application:
    app = new_app(config, status_field=MANAGEMENT_STATUS_FIELD, public_paths=frozenset({"/query"}))
    app.cleanup_ctx.extend(
        [
            mongo_context(config.bot_database),
            nats_context("bot-api"),
            replicas_context("bot-api"),
            rotations_context(),
            outbox_context(),
            repositories,
            signin.setup,
            story_cache.setup,
            interactions.setup,
            entity_service,
            test_service,
            transfer.setup,
            versions.setup,
            knowledge.setup,
            inbox.setup,
            analytics.setup,
            story_service,
            recording,
            query.setup,
            handoffs.setup,
            members.setup,
            story_lookups,
            channel_turns,
            story_events,
            connection_events,
        ]
    )
    app.on_shutdown.append(handoffs.end_streams)
    app.middlewares.append(story_tests_views.tests_link)
    add_meta_routes(app, "Parley bot-api")
    for routes in (
        stories_views.routes,
        entities_views.routes,
        interactions_views.routes,
        query_views.routes,
        history_views.routes,
        handoffs_views.routes,
        analytics_views.routes,
        inbox_views.routes,
        transfer_views.routes,
        versions_views.routes,
        story_tests_views.routes,
        knowledge_views.routes,
        members_views.routes,
        audit_views.routes,
        signin_views.routes,
    ):
        app.router.add_routes(routes)
    add_console(app)
    return app
