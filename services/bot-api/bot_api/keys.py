"""The application keys every feature may read: the shared plumbing's bot-api uses, the
change feed and the account quotas. Each feature declares its own in its keys.py."""

from aiohttp import web

from bot_api.changes import ChangeFeed
from bot_api.quotas import AccountQuotas
from shared.keys import (
    ACCOUNTS,
    CONFIG,
    CONSOLE_SESSIONS,
    DATABASE,
    NATS,
    OUTBOX,
    PRINCIPALS,
    RATE_LIMITS,
    REPLICAS,
)

CHANGES = web.AppKey("changes", ChangeFeed)
QUOTAS = web.AppKey[AccountQuotas]("quotas")

__all__ = [
    "ACCOUNTS",
    "CHANGES",
    "CONFIG",
    "CONSOLE_SESSIONS",
    "DATABASE",
    "NATS",
    "OUTBOX",
    "PRINCIPALS",
    "QUOTAS",
    "RATE_LIMITS",
    "REPLICAS",
]
