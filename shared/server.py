"""The HTTP server a service runs behind: aiohttp's, with the limits a public endpoint
needs (docs/reliability.md "HTTP input and the OpenAPI contract").

- A connection that sends no complete request within `idle_seconds` is closed
  (aiohttp's keep-alive timer also runs before the first request), and so is one idle
  that long between requests; a body must arrive within `body_read_seconds`
  (`shared.json_body`).
- At most `max_connections` connections per process, and at most
  `max_connections_per_client` from one peer address (a peer in `TRUSTED_PROXIES`, the
  gateway, speaks for many clients and is not capped as one). The caps are applied to
  the accepted socket (`GuardedSite` accepts itself), before any transport or HTTP
  protocol is made for it: one over its address's cap is sent a ready-made 503 and
  closed, which costs a few system calls (issue 29: 1,100 connections from one address,
  each refused one reopened at once, had bot-api at 100 % CPU closing 52,589 connections
  in 30 s, `/healthz` p99 3.6 s). When the process is full, the connection idle the
  longest (waiting for a request, none in hand) from another address is closed to make
  room for the new one, so one client holding the cap cannot lock out the others, and
  never one from the newcomer's own address (that one would reopen it: churn). When
  none can be closed the new one is refused and no more are accepted until a
  connection ends: they wait in the listening socket's backlog, costing nothing.
- A request the HTTP parser refuses (a request line or header over the limit, a bad
  header character) is answered in the JSON envelope, and logged in one line.
"""

import asyncio
import contextlib
import json
import logging
import socket
from collections import Counter
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler
from yarl import URL

from shared.clients import Network, is_trusted, trusted_networks
from shared.config import Config
from shared.envelope import envelope
from shared.errors import STATUSES
from shared.keys import STATUS_FIELD

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 8190
MAX_HEADER_BYTES = 8190
ACCEPTS_PER_WAKE = 64
"""Connections accepted each time the listening socket is readable, as asyncio does."""
ACCEPT_RETRY_SECONDS = 1.0
"""Accepting resumes this long after the process ran out of file descriptors."""
REFUSED_READ_BYTES = MAX_LINE_BYTES + MAX_HEADER_BYTES
"""What a refused connection's client sent is read, up to a request head, then dropped."""
PER_CLIENT_REFUSAL = "too many connections from your address; retry later"
FULL_REFUSAL = "too many connections; retry later"


class GuardedRequestHandler(RequestHandler):
    """aiohttp's handler of one connection, answering the parser's errors in the
    envelope."""

    def idle_since(self) -> float | None:
        """When this connection began waiting for its next request (the time aiohttp's
        keep-alive timer counts from); None while a request is in hand."""
        if self._waiter is None or self._waiter.done() or self._messages:
            return None
        return self._next_keepalive_close_time - self._keepalive_timeout

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if isinstance(exc, HttpProcessingError):
            log.info("refused a malformed request from %s: %s", request.remote, exc.message)
            details = f"the request could not be read: {exc.message.splitlines()[0][:200]}"
        else:
            log.error("error handling a request from %s", request.remote, exc_info=exc)
            details = "internal server error"
        server = self._manager
        status_field = server.status_field if isinstance(server, GuardedServer) else "errorType"
        response = web.Response(
            body=_envelope_bytes(status_field, status, details),
            status=status,
            content_type="application/json",
        )
        response.force_close()
        return response


def _envelope_bytes(status_field: str, status: int, details: str) -> bytes:
    known = STATUSES.get(status, STATUSES[400])
    body = envelope(status_field, status, known.error_type)
    body["status"]["errorDetails"] = details
    return json.dumps(body).encode()


def _refusal_bytes(status_field: str, details: str) -> bytes:
    """The whole 503 answer to a connection refused at accept."""
    body = _envelope_bytes(status_field, 503, details)
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def _refuse(connection: socket.socket, answer: bytes) -> None:
    """Send `answer` if the socket takes it at once, and close: no transport, no task.
    What the client sent already is read first: closing over unread bytes resets the
    connection, and the client may lose the answer."""
    with contextlib.suppress(OSError):
        connection.setblocking(False)
        connection.recv(REFUSED_READ_BYTES)
    with contextlib.suppress(OSError):
        connection.send(answer)
    connection.close()


class GuardedServer(web.Server):
    def __init__(
        self,
        *args: Any,
        max_connections: int,
        max_connections_per_client: int,
        trusted: tuple[Network, ...],
        status_field: str,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self.max_connections = max_connections
        self.max_connections_per_client = max_connections_per_client
        self.trusted = trusted
        self.status_field = status_field
        self._refusals = {
            details: _refusal_bytes(status_field, details)
            for details in (PER_CLIENT_REFUSAL, FULL_REFUSAL)
        }
        self._peer_of: dict[RequestHandler, str] = {}
        self._per_client: Counter[str] = Counter()
        """Connections by untrusted peer address, counted from their accept."""
        self._opening = 0
        """Connections accepted whose handler is not made yet."""
        self._open_count = 0
        """Connections whose handler is made and not lost (aiohttp lists a lost one among
        `connections` until its request ends)."""
        self._opened: set[asyncio.Task[None]] = set()
        self._listening: socket.socket | None = None
        self._accepting = False

    def listen(self, listening: socket.socket) -> None:
        """Accept connections from `listening` (non-blocking), applying the caps."""
        self._listening = listening
        self._resume_accepting()

    def stop_listening(self) -> None:
        if self._listening is not None:
            self._pause_accepting()
            self._listening.close()
            self._listening = None

    def _resume_accepting(self) -> None:
        if self._listening is not None and not self._accepting:
            self._loop.add_reader(self._listening.fileno(), self._accept)
            self._accepting = True

    def _pause_accepting(self) -> None:
        if self._listening is not None and self._accepting:
            self._loop.remove_reader(self._listening.fileno())
            self._accepting = False

    def _accept(self) -> None:
        assert self._listening is not None
        for _ in range(ACCEPTS_PER_WAKE):
            try:
                connection, address = self._listening.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of file descriptors: wait, as asyncio does
                log.warning("accepting a connection failed: %s", error)
                self._pause_accepting()
                self._loop.call_later(ACCEPT_RETRY_SECONDS, self._resume_accepting)
                return
            peer = str(address[0])
            refusal = self._refusal(peer)
            if refusal is None:
                self._open(connection, peer)
            else:
                _refuse(connection, self._refusals[refusal])

    def _refusal(self, peer: str) -> str | None:
        """Why a connection from `peer` is refused, or None, having made room for it
        when the process is full."""
        trusted = is_trusted(peer, self.trusted)
        if not trusted and self._per_client[peer] >= self.max_connections_per_client:
            return PER_CLIENT_REFUSAL
        full = self._open_count + self._opening >= self.max_connections
        if full and not self._close_idlest(peer):
            self._pause_accepting()  # until a connection ends (connection_lost)
            return FULL_REFUSAL
        return None

    def _close_idlest(self, peer: str) -> bool:
        """Close the connection idle the longest from another address than `peer`;
        whether there was one."""
        idle = [
            (since, other)
            for other in self._connections
            if isinstance(other, GuardedRequestHandler)
            and self._peer_of.get(other) != peer
            and (since := other.idle_since()) is not None
        ]
        if not idle:
            return False
        min(idle, key=lambda pair: pair[0])[1].force_close()
        return True

    def _open(self, connection: socket.socket, peer: str) -> None:
        """Serve `connection` from `peer`: counted now, its handler made when asyncio
        has made its transport."""
        counted = not is_trusted(peer, self.trusted)
        if counted:
            self._per_client[peer] += 1
        self._opening += 1
        made: list[RequestHandler] = []

        def handler() -> RequestHandler:
            made.append(GuardedRequestHandler(self, loop=self._loop, **self._kwargs))
            self._peer_of[made[0]] = peer
            self._open_count += 1
            return made[0]

        async def opened() -> None:
            try:
                await self._loop.connect_accepted_socket(handler, connection)
            except OSError:  # reset before its transport was made
                connection.close()
                if not made and counted:
                    self._uncount(peer)
            finally:
                self._opening -= 1

        task = self._loop.create_task(opened())
        self._opened.add(task)
        task.add_done_callback(self._opened.discard)

    def _uncount(self, peer: str) -> None:
        self._per_client[peer] -= 1
        if not self._per_client[peer]:
            del self._per_client[peer]

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        super().connection_lost(handler, exc)
        peer = self._peer_of.pop(handler, None)
        if peer is None:
            return
        self._open_count -= 1
        if not is_trusted(peer, self.trusted):
            self._uncount(peer)
        self._resume_accepting()

    def __call__(self) -> RequestHandler:
        return GuardedRequestHandler(self, loop=self._loop, **self._kwargs)


class GuardedRunner(web.AppRunner):
    """An AppRunner whose server is a GuardedServer with the limits of `config`."""

    def __init__(self, app: web.Application, config: Config, **kwargs: Any) -> None:
        super().__init__(
            app,
            keepalive_timeout=config.idle_seconds,
            lingering_time=config.body_read_seconds,
            max_line_size=MAX_LINE_BYTES,
            max_field_size=MAX_HEADER_BYTES,
            **kwargs,
        )
        self._config = config

    async def _make_server(self) -> web.Server:
        plain = await super()._make_server()
        return GuardedServer(
            plain.request_handler,
            request_factory=plain.request_factory,
            handler_cancellation=plain.handler_cancellation,
            max_connections=self._config.max_connections,
            max_connections_per_client=self._config.max_connections_per_client,
            trusted=trusted_networks(self._config.trusted_proxies),
            status_field=self.app[STATUS_FIELD],
            **plain._kwargs,
        )


class GuardedSite(web.BaseSite):
    """host:port, its connections accepted by the runner's GuardedServer itself."""

    def __init__(self, runner: GuardedRunner, host: str, port: int) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port

    @property
    def name(self) -> str:
        return str(URL.build(scheme="http", host=self._host, port=self._port))

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert isinstance(server, GuardedServer)
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        listening = socket.create_server(
            (self._host, self._port), family=family, backlog=self._backlog
        )
        listening.setblocking(False)
        server.listen(listening)

    async def stop(self) -> None:
        server = self._runner.server
        if isinstance(server, GuardedServer):
            server.stop_listening()
        await super().stop()


def site(runner: web.BaseRunner, host: str, port: int) -> web.BaseSite:
    """Where `runner` listens: a GuardedSite for a GuardedRunner."""
    if isinstance(runner, GuardedRunner):
        return GuardedSite(runner, host, port)
    return web.TCPSite(runner, host, port)


async def start(app: web.Application, config: Config, host: str, port: int) -> GuardedRunner:
    """`app` served on host:port until the returned runner's `cleanup()`."""
    runner = GuardedRunner(app, config)
    await runner.setup()
    await GuardedSite(runner, host, port).start()
    return runner
