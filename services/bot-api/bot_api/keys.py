"""Every application key of bot-api: the shared plumbing's it uses, and its own."""

from aiohttp import web

from bot_api.changes import ChangeFeed
from bot_api.conversations.analytics import AnalyticsCounters
from bot_api.conversations.answering import ConversationService
from bot_api.conversations.cache import StoryCache
from bot_api.conversations.history import TurnRecorder
from bot_api.conversations.vectors import PhraseVectorService
from bot_api.management.analytics import AnalyticsReports
from bot_api.management.conversation_tests import ConversationTestService
from bot_api.management.entities import EntityService
from bot_api.management.handoffs import HandoffService
from bot_api.management.history import HistoryService
from bot_api.management.inbox import InboxService
from bot_api.management.interactions import InteractionService
from bot_api.management.stories import StoryService
from bot_api.management.transfer import StoryTransfer
from bot_api.management.versions import VersionService
from bot_api.storage import Stores
from bot_api.storage.analytics import AnalyticsRepository
from shared.fair_work import FairWork
from shared.keys import ACCOUNTS, CONFIG, DATABASE, NATS, OUTBOX, PRINCIPALS, RATE_LIMITS

STORES = web.AppKey("stores", Stores)
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
ANALYTICS_STORE = web.AppKey("analytics_store", AnalyticsRepository)
"""The counters' repository, opened with the management use cases: a story's deletion
empties its counters."""
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
    "ANALYTICS_STORE",
    "CHANGES",
    "CONFIG",
    "CONVERSATIONS",
    "CONVERSATION_TESTS",
    "DATABASE",
    "ENTITIES",
    "HANDOFFS",
    "HISTORY",
    "INBOX",
    "INTERACTIONS",
    "NATS",
    "OUTBOX",
    "PHRASE_VECTORS",
    "PRINCIPALS",
    "RATE_LIMITS",
    "RECORDER",
    "STORES",
    "STORIES",
    "STORY_CACHE",
    "TRANSFER",
    "TRANSFER_WORK",
    "VERSIONS",
]
