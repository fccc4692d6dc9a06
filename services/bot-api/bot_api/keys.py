"""Every application key of bot-api: the shared plumbing's it uses, and its own."""

from aiohttp import web

from bot_api.analytics.counters import AnalyticsCounters
from bot_api.analytics.service import AnalyticsReports
from bot_api.changes import ChangeFeed
from bot_api.connections.repository import ConnectionView
from bot_api.entities.service import EntityService
from bot_api.handoffs.service import HandoffService
from bot_api.history.recorder import TurnRecorder
from bot_api.history.repository import TurnStore
from bot_api.history.service import HistoryService
from bot_api.inbox.service import InboxService
from bot_api.interactions.repository import InteractionStore
from bot_api.interactions.service import InteractionService
from bot_api.query.repository import SessionStore
from bot_api.query.service import ConversationService
from bot_api.stories.repository import StoryStore
from bot_api.stories.service import StoryService
from bot_api.story_cache.cache import StoryCache
from bot_api.story_cache.vectors import PhraseVectorService
from bot_api.story_tests.service import ConversationTestService
from bot_api.transfer.service import StoryTransfer
from bot_api.versions.service import VersionService
from shared.fair_work import FairWork
from shared.keys import ACCOUNTS, CONFIG, DATABASE, NATS, OUTBOX, PRINCIPALS, RATE_LIMITS

STORY_STORE = web.AppKey[StoryStore]("story_store")
INTERACTION_STORE = web.AppKey[InteractionStore]("interaction_store")
SESSION_STORE = web.AppKey[SessionStore]("session_store")
CONNECTION_VIEW = web.AppKey[ConnectionView]("connection_view")
TURN_STORE = web.AppKey[TurnStore]("turn_store")
CHANGES = web.AppKey("changes", ChangeFeed)
STORY_CACHE = web.AppKey("story_cache", StoryCache)
STORIES = web.AppKey("stories", StoryService)
INTERACTIONS = web.AppKey("interactions", InteractionService)
ENTITIES = web.AppKey("entities", EntityService)
CONVERSATIONS = web.AppKey("conversations", ConversationService)
HISTORY = web.AppKey("history", HistoryService)
HANDOFFS = web.AppKey("handoffs", HandoffService)
RECORDER = web.AppKey("recorder", TurnRecorder)
INBOX = web.AppKey("inbox", InboxService)
PHRASE_VECTORS = web.AppKey[PhraseVectorService | None]("phrase_vectors")
"""The semantic stage's vectors and encoder; None when SEMANTIC_MATCHING is off."""
ANALYTICS = web.AppKey("analytics", AnalyticsCounters)
"""A listener of the history recorder: counts each batch of turns it stores."""
ANALYTICS_REPORTS = web.AppKey("analytics_reports", AnalyticsReports)
CONVERSATION_TESTS = web.AppKey("conversation_tests", ConversationTestService)
"""A story's tests, run on demand and after each edit (docs/tests.md)."""
TRANSFER = web.AppKey("transfer", StoryTransfer)
VERSIONS = web.AppKey("versions", VersionService)
TRANSFER_WORK = web.AppKey("transfer_work", FairWork)
"""The threads that read uploads (translating, checking), write exports and version
documents, off the event loop, shared fairly between accounts (shared/fair_work.py)."""

__all__ = [
    "ACCOUNTS",
    "ANALYTICS",
    "ANALYTICS_REPORTS",
    "CHANGES",
    "CONFIG",
    "CONNECTION_VIEW",
    "CONVERSATIONS",
    "CONVERSATION_TESTS",
    "DATABASE",
    "ENTITIES",
    "HANDOFFS",
    "HISTORY",
    "INBOX",
    "INTERACTIONS",
    "INTERACTION_STORE",
    "NATS",
    "OUTBOX",
    "PHRASE_VECTORS",
    "PRINCIPALS",
    "RATE_LIMITS",
    "RECORDER",
    "SESSION_STORE",
    "STORIES",
    "STORY_CACHE",
    "STORY_STORE",
    "TRANSFER",
    "TRANSFER_WORK",
    "TURN_STORE",
    "VERSIONS",
]
