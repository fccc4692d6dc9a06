"""The pieces every Parley service's application is built from.

`new_app` opens nothing but the body worker, a thread started on first use that
decodes and validates large JSON bodies (`shared.json_body`); `mongo_context`, `nats_context` and
`outbox_context` each give a cleanup_ctx step that opens one thing on start-up and
closes it on shutdown (in reverse order, so the outbox stops before NATS drains);
`add_meta_routes` adds the health routes, /metrics and the OpenAPI document. A
service's `create_app` lists them in order. MongoDB and NATS are waited for at start
(`shared.startup`).
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy
from nats.js.errors import APIError

from shared import expiry, health, messaging, mongo
from shared.audit import AuditLog
from shared.auditing import AUDIT_LOG
from shared.auth import AccountRepository, PrincipalCache
from shared.budget import budget_middleware
from shared.config import Config
from shared.console_sessions import ConsoleSessionRepository
from shared.cors import cors_middleware
from shared.endpoints import roles_middleware
from shared.envelope import envelope_middleware
from shared.events import ReplicaAlive, TokensRotated, UndecodableEvent, decode, encode
from shared.idempotency import IdempotencyKeys
from shared.keys import (
    ACCOUNTS,
    BODY_WORKER,
    CONFIG,
    CONSOLE_SESSIONS,
    DATABASE,
    IDEMPOTENCY,
    MONGO,
    NATS,
    OUTBOX,
    PRINCIPALS,
    PROBES,
    RATE_LIMITS,
    REPLICAS,
    STARTUP,
    STATUS_FIELD,
    Probe,
)
from shared.openapi import add_openapi_route
from shared.outbox import Outbox
from shared.rates import RateLimits
from shared.replicas import HEARTBEAT_SECONDS, Replicas
from shared.request_log import request_log_middleware
from shared.startup import Startup, StartupFailed, wait_for

log = logging.getLogger(__name__)
CleanupContext = Callable[[web.Application], AsyncIterator[None]]

OUTBOX_STOP_SECONDS = 5.0
SHUTDOWN_STEP_SECONDS = 10.0  # no step of a shutdown may hang it
API_VERSION = "0.1.0"


def new_app(
    config: Config, *, status_field: str, public_paths: frozenset[str] = frozenset()
) -> web.Application:
    """An app that logs every request, puts every answer in the envelope (its outcome
    named `status_field`) within the request budget, and answers other web origins as
    configured (`public_paths`: those of chat clients)."""
    app = web.Application(
        middlewares=[
            request_log_middleware,
            cors_middleware(config, public_paths),
            envelope_middleware,
            budget_middleware,
            roles_middleware,
        ],
        client_max_size=config.max_body_bytes,
    )
    app[CONFIG] = config
    app[REPLICAS] = Replicas()
    app[RATE_LIMITS] = RateLimits(config, app[REPLICAS])
    app[STATUS_FIELD] = status_field
    app[STARTUP] = Startup()
    app.cleanup_ctx.append(body_worker)
    return app


async def body_worker(app: web.Application) -> AsyncIterator[None]:
    """One thread: however many large bodies arrive at once, one at a time is decoded and
    validated beside the event loop; a body still queued at shutdown is not."""
    app[BODY_WORKER] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="json-body")
    yield
    app[BODY_WORKER].shutdown(wait=False, cancel_futures=True)


def mongo_context(database: str) -> CleanupContext:
    """MongoDB, with `database` as the service's own (with its idempotency keys) and the
    accounts database every service reads (the accounts and their audit log); on
    nx-27017, the expired documents of both swept once a minute (`shared.expiry`)."""

    async def open_mongo(app: web.Application) -> AsyncIterator[None]:
        config = app[CONFIG]
        client = mongo.open_client(config.mongodb_url)
        await wait_for(
            app[STARTUP],
            "MongoDB",
            lambda: client.admin.command("ping"),
            config.startup_wait_seconds,
        )
        app[MONGO] = client
        app[DATABASE] = client[database]
        app[ACCOUNTS] = AccountRepository(client[config.accounts_database])
        app[PRINCIPALS] = PrincipalCache(app[ACCOUNTS])
        app[CONSOLE_SESSIONS] = ConsoleSessionRepository(client[config.accounts_database])
        app[IDEMPOTENCY] = IdempotencyKeys(app[DATABASE], config.request_budget_seconds)
        app[AUDIT_LOG] = AuditLog(client[config.accounts_database], config.audit_retention_days)
        await app[ACCOUNTS].ensure_indexes()
        await app[IDEMPOTENCY].ensure_indexes()
        await app[CONSOLE_SESSIONS].ensure_indexes()
        await app[AUDIT_LOG].ensure_indexes()
        sweepers = []
        if await expiry.sweeps_on_read(client):
            swept = (app[DATABASE], client[config.accounts_database])
            sweepers = [asyncio.create_task(expiry.sweep_forever(each)) for each in swept]
        yield
        for sweeper in sweepers:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.close(), SHUTDOWN_STEP_SECONDS)

    return open_mongo


def nats_context(client_name: str) -> CleanupContext:
    """NATS, with the deployment's event stream ensured; drained on shutdown."""

    async def open_nats(app: web.Application) -> AsyncIterator[None]:
        config = app[CONFIG]
        subjects = config.subjects
        await wait_for(
            app[STARTUP],
            "NATS",
            lambda: messaging.check_reachable(config.nats_url),
            config.startup_wait_seconds,
        )
        app[NATS] = await messaging.connect(config.nats_url, client_name)
        replicas = config.nats_stream_replicas
        try:
            await messaging.ensure_stream(app[NATS], subjects, replicas)
        except APIError as refused:  # e.g. more replicas than a lone server or the cluster has
            await app[NATS].close()
            raise StartupFailed(
                f"NATS refused the event stream {subjects.stream} with "
                f"NATS_STREAM_REPLICAS={replicas}: {refused.description}"
            ) from None
        yield
        with contextlib.suppress(TimeoutError):
            if app[NATS].is_connected:
                await asyncio.wait_for(app[NATS].drain(), SHUTDOWN_STEP_SECONDS)
            else:
                await app[NATS].close()  # NATS is away: nothing to drain

    return open_nats


def rotations_context() -> CleanupContext:
    """Follows token rotations: every process forgets the rotated account's cached
    principals, so its old tokens stop working everywhere within a second."""

    async def follow_rotations(app: web.Application) -> AsyncIterator[None]:
        async def forget(message: Msg) -> None:
            try:
                rotated = decode(TokensRotated, message.data)
            except UndecodableEvent as error:
                log.warning("skipped an unreadable token rotation: %s", error)
                return
            app[PRINCIPALS].forget(rotated.account_id)

        subscription = await (
            app[NATS]
            .jetstream()
            .subscribe(
                app[CONFIG].subjects.tokens_rotated,
                cb=forget,
                ordered_consumer=True,
                deliver_policy=DeliverPolicy.NEW,
            )
        )
        yield
        await subscription.unsubscribe()

    return follow_rotations


def replicas_context(service: str) -> CleanupContext:
    """Announce this replica and count the others (after `nats_context`)."""

    async def announce_replicas(app: web.Application) -> AsyncIterator[None]:
        client = app[NATS]
        subject = app[CONFIG].subjects.replicas(service)
        replicas = app[REPLICAS]
        alive = encode(ReplicaAlive(replicas.me))

        async def announce() -> None:
            with contextlib.suppress(Exception):  # NATS away: counted alone meanwhile
                await client.publish(subject, alive)

        async def hear(message: Msg) -> None:
            try:
                heard = decode(ReplicaAlive, message.data)
            except UndecodableEvent as error:
                log.warning("skipped an unreadable replica announcement: %s", error)
                return
            if replicas.heard(heard.replica):
                await announce()

        async def beat() -> None:
            while True:
                await announce()
                await asyncio.sleep(HEARTBEAT_SECONDS)

        subscription = await client.subscribe(subject, cb=hear)
        heartbeat = asyncio.create_task(beat())
        yield
        heartbeat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await heartbeat
        with contextlib.suppress(Exception):
            await subscription.unsubscribe()

    return announce_replicas


def outbox_context() -> CleanupContext:
    """The event outbox in the service's database, publishing while the app runs; it
    finishes its current step before NATS closes (after `mongo_context` and
    `nats_context`)."""

    async def run_outbox(app: web.Application) -> AsyncIterator[None]:
        app[OUTBOX] = Outbox(app[DATABASE], app[NATS])
        publisher = asyncio.create_task(app[OUTBOX].run())
        yield
        app[OUTBOX].stop()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(publisher, OUTBOX_STOP_SECONDS)

    return run_outbox


def add_meta_routes(app: web.Application, title: str) -> None:
    """/healthz, /readyz (MongoDB and NATS answer), /metrics and /openapi.json."""

    async def mongo_ready() -> bool:
        await app[MONGO].admin.command("ping")
        return True

    async def nats_ready() -> bool:
        return bool(app[NATS].is_connected)

    probes: dict[str, Probe] = {"mongodb": mongo_ready, "nats": nats_ready}
    app[PROBES] = probes
    app.router.add_routes(health.routes)
    add_openapi_route(app, title, API_VERSION)
