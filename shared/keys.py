"""The application keys of the plumbing every service shares (shared/service.py sets
them); each service's own `keys.py` re-exports those it uses beside its own."""

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web
from nats.aio.client import Client as NatsClient
from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

from shared.auth import AccountRepository, PrincipalCache
from shared.config import Config
from shared.console_sessions import ConsoleSessionRepository
from shared.idempotency import IdempotencyKeys
from shared.outbox import Outbox
from shared.rates import RateLimits
from shared.replicas import Replicas
from shared.startup import Startup

Probe = Callable[[], Awaitable[bool]]

CONFIG = web.AppKey("config", Config)
STATUS_FIELD = web.AppKey("status_field", str)
"""How the envelope names the outcome: `errorType` or `type` (shared/envelope.py)."""
MONGO = web.AppKey("mongo", AsyncMongoClient)
DATABASE = web.AppKey("database", AsyncDatabase)
"""The service's own database."""
ACCOUNTS = web.AppKey("accounts", AccountRepository)
PRINCIPALS = web.AppKey("principals", PrincipalCache)
CONSOLE_SESSIONS = web.AppKey("console_sessions", ConsoleSessionRepository)
"""The sessions of members signed in to the console (shared/console_sessions.py)."""
IDEMPOTENCY = web.AppKey("idempotency", IdempotencyKeys)
"""The first answers of creates sent with an `Idempotency-Key` (shared/idempotency.py)."""
NATS = web.AppKey("nats", NatsClient)
OUTBOX = web.AppKey("outbox", Outbox)
RATE_LIMITS = web.AppKey("rate_limits", RateLimits)
"""Every rate limit of the process (shared/rates.py)."""
REPLICAS = web.AppKey("replicas", Replicas)
"""The live replicas of the service, sharing account-wide limits (shared/replicas.py)."""
PROBES = web.AppKey("readiness_probes", dict[str, Probe])
BODY_WORKER = web.AppKey("body_worker", ThreadPoolExecutor)
"""The one thread that decodes and validates large JSON bodies (shared/json_body.py)."""
STARTUP = web.AppKey("startup", Startup)
"""What the process still waits for at start (shared/startup.py)."""
BODY_ARRIVING = web.RequestKey("body_arriving", bool)
"""Whether the request waits for its client to send the body (shared/json_body.py): a
budget that runs out meanwhile is the client's delay, a 408 (shared/budget.py)."""
