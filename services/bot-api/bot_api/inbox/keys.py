"""The misses inbox's application key."""

from aiohttp import web

from bot_api.inbox.repository import InboxStore
from bot_api.inbox.service import InboxService
from bot_api.inbox.snapshots import InboxSnapshotStore

INBOX = web.AppKey("inbox", InboxService)
INBOX_STORE = web.AppKey[InboxStore]("inbox_store")
"""The turns of stories' inboxes and their ignored texts: a story's deletion empties them."""
INBOX_SNAPSHOTS = web.AppKey[InboxSnapshotStore]("inbox_snapshots")
"""Each story's inbox as last read whole: a story's deletion and an erasure drop it."""
