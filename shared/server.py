"""The HTTP server a service runs behind: aiohttp's, with the limits a public endpoint
needs (docs/reliability.md "HTTP input and the OpenAPI contract").

- A connection that sends no complete request within `idle_seconds` is closed
  (aiohttp's keep-alive timer also runs before the first request), and so is one idle
  that long between requests; a body must arrive within `body_read_seconds`
  (`shared.json_body`).
- At most `max_connections` connections per process, and at most
  `max_connections_per_client` from one peer address (a peer in `TRUSTED_PROXIES`, the
  gateway, speaks for many clients and is not capped as one): one over its address's
  cap is answered 503 at once and closed. When the process is full, the connection
  idle the longest (waiting for a request, none in hand) is closed to make room for
  the new one, so one client holding the cap and reopening what is closed cannot lock
  out the others; only when none is idle is the new one refused.
- A request the HTTP parser refuses (a request line or header over the limit, a bad
  header character) is answered in the JSON envelope, and logged in one line.
"""

import asyncio
import json
import logging
from collections import Counter
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler

from shared.clients import Network, is_trusted, trusted_networks
from shared.config import Config
from shared.envelope import envelope
from shared.errors import STATUSES
from shared.keys import STATUS_FIELD

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 8190
MAX_HEADER_BYTES = 8190


class GuardedRequestHandler(RequestHandler):
    """aiohttp's handler of one connection, refusing one over the caps and answering
    the parser's errors in the envelope."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        server = self._manager
        if not isinstance(server, GuardedServer):
            return
        refusal = server.admit(self, transport.get_extra_info("peername"))
        if refusal is not None:
            body = _envelope_bytes(server.status_field, 503, refusal)
            head = (
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
            )
            transport.write(head.encode() + body)  # type: ignore[attr-defined]
            transport.close()

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
        self._client_of: dict[RequestHandler, str] = {}
        self._per_client: Counter[str] = Counter()

    def admit(self, handler: RequestHandler, peername: Any) -> str | None:
        """Count `handler` (already among `connections`) against the caps: why it is
        refused, or None, closing the idlest connection when the process is full."""
        peer = str(peername[0]) if isinstance(peername, tuple) else ""
        if not is_trusted(peer, self.trusted):
            if self._per_client[peer] >= self.max_connections_per_client:
                return "too many connections from your address; retry later"
            self._client_of[handler] = peer
            self._per_client[peer] += 1
        if len(self.connections) <= self.max_connections:
            return None
        idle = [
            (since, other)
            for other in self.connections
            if isinstance(other, GuardedRequestHandler)
            and (since := other.idle_since()) is not None
        ]
        if not idle:
            return "too many connections; retry later"
        min(idle, key=lambda pair: pair[0])[1].force_close()
        return None

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        super().connection_lost(handler, exc)
        peer = self._client_of.pop(handler, None)
        if peer is not None:
            self._per_client[peer] -= 1
            if not self._per_client[peer]:
                del self._per_client[peer]

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


async def start(app: web.Application, config: Config, host: str, port: int) -> GuardedRunner:
    """`app` served on host:port until the returned runner's `cleanup()`."""
    runner = GuardedRunner(app, config)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner
