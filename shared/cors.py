"""CORS: which other web origins a browser lets call a service (docs/console.md "CORS").

Public paths (bot-api's /query, which chat clients in any page call with the public
key) answer the origins of `QUERY_ORIGINS`; every other path (the management and
connection APIs) only those of `API_ORIGINS`, none unless configured. A request from
an origin not allowed gets no CORS headers, so the browser keeps the answer from the
page; its preflight is refused with a 403.
"""

from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from shared.config import Config

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

ALLOWED_METHODS = "GET, POST, PUT, DELETE"
ALLOWED_HEADERS = "Authorization, Content-Type, X-CSRF-Token, X-Request-Id"
PREFLIGHT_MAX_AGE_SECONDS = 600


def _allows(origins: tuple[str, ...], origin: str) -> bool:
    return "*" in origins or origin in origins


def _allow(
    headers: "web.StreamResponse | web.HTTPException", origin: str, credentials: bool
) -> None:
    headers.headers["Access-Control-Allow-Origin"] = origin
    if credentials:
        headers.headers["Access-Control-Allow-Credentials"] = "true"
    headers.headers["Access-Control-Expose-Headers"] = "X-Request-Id, X-Total-Count, Retry-After"
    headers.headers.add("Vary", "Origin")


def cors_middleware(config: Config, public_paths: frozenset[str]) -> Middleware:
    """The outermost middleware, so that error answers carry the headers as well."""

    @web.middleware
    async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is None:
            return await handler(request)
        public = request.path in public_paths
        allowed = _allows(config.query_origins if public else config.api_origins, origin)
        # The console's session cookie goes along only to an origin named in API_ORIGINS
        # (the console's, when integrations-api has an address of its own), never to `*`.
        credentials = not public and origin in config.api_origins
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            if not allowed:
                return web.Response(status=403, text="origin not allowed")
            preflight = web.Response(status=204)
            _allow(preflight, origin, credentials)
            methods = "POST" if public else ALLOWED_METHODS
            preflight.headers["Access-Control-Allow-Methods"] = methods
            preflight.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            preflight.headers["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE_SECONDS)
            return preflight
        try:
            response = await handler(request)
        except web.HTTPException as answer:
            if allowed:
                _allow(answer, origin, credentials)
            raise
        if allowed:
            _allow(response, origin, credentials)
        return response

    return cors
