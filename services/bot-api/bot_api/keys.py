"""The application keys every feature may read: the shared plumbing's bot-api uses, and the
change feed. Each feature declares its own in its keys.py (stories/keys.py, ...)."""

from aiohttp import web

from bot_api.changes import ChangeFeed
from shared.keys import ACCOUNTS, CONFIG, DATABASE, NATS, OUTBOX, PRINCIPALS, RATE_LIMITS

CHANGES = web.AppKey("changes", ChangeFeed)

__all__ = [
    "ACCOUNTS",
    "CHANGES",
    "CONFIG",
    "DATABASE",
    "NATS",
    "OUTBOX",
    "PRINCIPALS",
    "RATE_LIMITS",
]
