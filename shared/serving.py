"""`serve`: the app on HOST and its port, behind the limits of `shared.server`, answering
while it still waits for MongoDB or NATS, and stopping cleanly on SIGINT or SIGTERM.

Until the app's start-up steps are done, a small stand-in app holds the port: /healthz
answers 200 (the process lives), /readyz and every other path 503 with what the start
waits for. Then the app itself takes the port. A port another program holds stops the
process with one line naming the setting to change.
"""

import asyncio
import contextlib
import errno
import logging
import signal

from aiohttp import web

from shared.config import Config
from shared.envelope import envelope_middleware
from shared.errors import Unavailable
from shared.keys import STARTUP, STATUS_FIELD
from shared.server import GuardedRunner, site
from shared.startup import StartupFailed

log = logging.getLogger(__name__)


def starting_app(app: web.Application) -> web.Application:
    startup = app[STARTUP]
    stand_in = web.Application(middlewares=[envelope_middleware])
    stand_in[STATUS_FIELD] = app[STATUS_FIELD]

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def readyz(request: web.Request) -> web.Response:
        body = {"status": "unavailable", "reason": startup.waiting_for}
        return web.json_response(body, status=503)

    async def anything(request: web.Request) -> web.Response:
        raise Unavailable(f"the service is starting: {startup.waiting_for}")

    stand_in.router.add_get("/healthz", healthz)
    stand_in.router.add_get("/readyz", readyz)
    stand_in.router.add_route("*", "/{path:.*}", anything)
    return stand_in


async def _until_stopped(started: "asyncio.Task[None]", stop: asyncio.Event) -> bool:
    """Whether `started` finished before a stop was asked for."""
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({started, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    return started.done() and not started.cancelled()


async def _listen(runner: web.BaseRunner, host: str, port: int, port_setting: str) -> bool:
    """Whether `runner` now listens on host:port; False, said in one line, when another
    program holds the port."""
    try:
        await site(runner, host, port).start()
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise
        log.error(
            "port %d on %s is taken by another program: stop it, or set %s to a free port",
            port,
            host,
            port_setting,
        )
        return False
    return True


async def serve(app: web.Application, config: Config, port: int, port_setting: str) -> int:
    """Serve on `port` (the value of the setting named `port_setting`) until SIGINT or
    SIGTERM; the exit status."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)

    waiting = web.AppRunner(starting_app(app), access_log=None)
    await waiting.setup()
    if not await _listen(waiting, config.host, port, port_setting):
        await waiting.cleanup()
        return 1
    runner = GuardedRunner(app, config, access_log=None)
    setting_up = asyncio.create_task(runner.setup())
    started = await _until_stopped(setting_up, stop)
    await waiting.cleanup()
    if not started:  # stopped while waiting: close what is open already
        setting_up.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await setting_up
        await runner.cleanup()
        return 0
    failure = setting_up.exception()
    if failure is not None:
        await runner.cleanup()
        if isinstance(failure, StartupFailed):
            log.error("%s", failure)
            return 1
        raise failure
    app[STARTUP].waiting_for = None
    if not await _listen(runner, config.host, port, port_setting):
        await runner.cleanup()
        return 1
    log.info("serving on http://%s:%d", config.host, port)
    await stop.wait()
    log.info("stopping")
    await runner.cleanup()
    return 0
