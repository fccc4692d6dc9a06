"""The HTTP server a service runs behind: aiohttp's, with the limits a public endpoint
needs (docs/reliability.md "HTTP input and the OpenAPI contract").

- A connection that sends no complete request within `idle_seconds` is closed
  (aiohttp's keep-alive timer also runs before the first request), and so is one idle
  that long between requests; a body must arrive within `body_read_seconds`
  (`shared.json_body`).
- At most `max_connections` connections per process: one more is answered 503 at once
  and closed, so a flood cannot take the file descriptors /healthz needs.
- A request the HTTP parser refuses (a request line or header over the limit, a bad
  header character) is answered in the JSON envelope, and logged in one line.
"""

import asyncio
import json
import logging
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler

from shared.config import Config
from shared.envelope import envelope
from shared.errors import STATUSES
from shared.keys import STATUS_FIELD

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 8190
MAX_HEADER_BYTES = 8190


class GuardedRequestHandler(RequestHandler):
    """aiohttp's handler of one connection, refusing one over the cap and answering
    the parser's errors in the envelope."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        server = self._manager
        if isinstance(server, GuardedServer) and len(server.connections) > server.max_connections:
            body = _envelope_bytes(server.status_field, 503, "too many connections; retry later")
            head = (
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
            )
            transport.write(head.encode() + body)  # type: ignore[attr-defined]
            transport.close()

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
    def __init__(self, *args: Any, max_connections: int, status_field: str, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.max_connections = max_connections
        self.status_field = status_field

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
            status_field=self.app[STATUS_FIELD],
            **plain._kwargs,
        )


async def start(app: web.Application, config: Config, host: str, port: int) -> GuardedRunner:
    """`app` served on host:port until the returned runner's `cleanup()`."""
    runner = GuardedRunner(app, config)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner
