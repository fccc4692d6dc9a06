"""One decorator declares what an endpoint takes, returns and who may call it.

The same declaration validates requests, shapes responses and writes the OpenAPI
document (shared.openapi), so the three cannot drift apart.
"""

import asyncio
import contextlib
import functools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from marshmallow import Schema, ValidationError, fields

from shared import json_body, roles
from shared.auditing import Audited, run_audited
from shared.auth import Principal, TokenKind, bearer_token, require
from shared.clients import client_address, trusted_networks
from shared.console_sessions import CSRF_HEADER, cookie_principal, session_cookie_name
from shared.errors import Unauthorized, ValidationFailed
from shared.keys import ACCOUNTS, BODY_WORKER, CONFIG, CONSOLE_SESSIONS, PRINCIPALS, RATE_LIMITS
from shared.pages import TOTAL_HEADER, Page, page_of

PRINCIPAL = web.RequestKey("principal", Principal)
PAGE = web.RequestKey("page", Page)
TOTAL = web.RequestKey("total", int)
"""Set by a paged handler: the number of items in all pages."""
QUERY = web.RequestKey("query", dict[str, Any])
"""The query string as the endpoint's `query` schema loaded it."""

LIST_CHUNK = 100
"""Items of a list dumped and encoded between two turns of the other requests: 100
interactions of 20 phrases take ~3 ms. Item by item (a turn every 128 KiB) cost more in
all and stalled /healthz longer (69-277 ms against 27-86 ms, `python -m bench.lists`)."""

DEVELOPER_ONLY = frozenset({TokenKind.DEVELOPER})
ANY_TOKEN = frozenset({TokenKind.DEVELOPER, TokenKind.PUBLIC})

Body = Schema | fields.Field[Any]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class EndpointSpec:
    summary: str
    tag: str
    auth: frozenset[TokenKind] | None
    body: Body | None
    response: Body | None
    status: int
    status_field: str | None
    errors: tuple[int, ...]
    cached_auth: bool
    rate_limit: str
    paged: bool
    body_bytes: int | None
    query: Schema | None = None
    uploads: tuple[str, ...] = ()
    answers: tuple[str, ...] = ("application/json",)
    budget_seconds: float | None = None
    audit: Audited | None = None


def endpoint(
    *,
    summary: str,
    tag: str,
    auth: frozenset[TokenKind] | None = DEVELOPER_ONLY,
    body: Body | None = None,
    response: Body | None = None,
    status: int = 200,
    status_field: str | None = None,
    errors: tuple[int, ...] = (),
    cached_auth: bool = False,
    rate_limit: str = "management",
    paged: bool = False,
    body_bytes: int | None = None,
    query: Schema | None = None,
    uploads: tuple[str, ...] = (),
    answers: tuple[str, ...] = ("application/json",),
    budget_seconds: float | None = None,
    audit: Audited | None = None,
) -> Callable[[Callable[..., Awaitable[Any]]], Handler]:
    """Wrap a handler `(request[, body]) -> data | Response`.

    With `auth`, the caller's token is checked first and `request[PRINCIPAL]` set
    (`cached_auth`: through the principal cache, for hot endpoints), and one request
    of the `rate_limit` spent ("query": the client's and the account's; "management":
    the account's; shared/rates.py). A client whose tokens failed too often is refused
    before its token is looked up. With
    `body`, the JSON body is parsed, validated and passed as the second argument. Data
    returned is dumped through `response` and answered with `status`. A `paged` list
    reads its page from `request[PAGE]` and sets `request[TOTAL]` (shared/pages.py).
    `body_bytes` caps the body below the service's `MAX_BODY_BYTES` (a 413 beyond).
    With `query`, the query string is loaded by that schema into `request[QUERY]` (a
    400 naming the parameter), and its fields are the operation's query parameters.
    With `uploads` (media types), the body is read, not parsed, and passed as an `Upload`:
    the handler decodes it; `body` is then the schema of its JSON form, for OpenAPI.
    `answers`: the media types a success is answered in (the handler's own Response
    when more than JSON), each with the `response` schema in the OpenAPI document.
    `budget_seconds`: a longer budget than the service's request budget, for work a
    client asks for and waits on, shared fairly (shared/budget.py).
    `audit`: the endpoint changes state, and each change leaves one audit record,
    written before the handler runs (shared/auditing.py); it needs `auth`.
    """
    if audit is not None and auth is None:
        raise ValueError("an audited endpoint needs a caller to name")
    spec = EndpointSpec(
        summary,
        tag,
        auth,
        body,
        response,
        status,
        status_field,
        errors,
        cached_auth,
        rate_limit,
        paged,
        body_bytes,
        query,
        uploads,
        answers,
        budget_seconds,
        audit,
    )

    def decorate(handler: Callable[..., Awaitable[Any]]) -> Handler:
        @functools.wraps(handler)
        async def wrapped(request: web.Request) -> web.StreamResponse:
            if spec.auth is not None:
                client = client_of(request)
                principal = await authenticate(request, client, spec.auth, spec.cached_auth)
                request[PRINCIPAL] = principal
                limits = request.app[RATE_LIMITS]
                if spec.rate_limit == "query":
                    limits.query(principal, client)
                else:
                    limits.management(principal)
            if spec.paged:
                request[PAGE] = page_of(request)
            if spec.query is not None:
                request[QUERY] = load(spec.query, dict(request.query))
            arguments: tuple[Any, ...] = ()
            if spec.uploads:
                arguments = (await read_upload(request, spec),)
            elif spec.body is not None:
                arguments = (await parse_body(request, spec.body, spec.body_bytes),)
            if spec.audit is None:
                result = await handler(request, *arguments)
            else:
                body = None if spec.uploads or not arguments else arguments[0]
                result = await run_audited(
                    request,
                    spec.audit,
                    request[PRINCIPAL],
                    body,
                    lambda: handler(request, *arguments),
                )
            if isinstance(result, web.StreamResponse):
                return result
            if spec.paged:
                return await list_response(spec.response, result, request[TOTAL])
            return web.json_response(dump(spec.response, result), status=spec.status)

        wrapped.__endpoint__ = spec  # type: ignore[attr-defined]
        return wrapped

    return decorate


_trusted_networks = functools.cache(trusted_networks)


def client_of(request: web.Request) -> str:
    return client_address(request, _trusted_networks(request.app[CONFIG].trusted_proxies))


async def authenticate(
    request: web.Request, client: str, allowed: frozenset[TokenKind], cached: bool = False
) -> Principal:
    """The caller's principal; a failure counts against the `client` address."""
    limits = request.app[RATE_LIMITS]
    limits.check_authentication(client)
    source = request.app[PRINCIPALS] if cached else request.app[ACCOUNTS]
    try:
        session_id = console_session_id(request)
        if session_id is not None:
            principal = await console_principal(request, session_id)
        else:
            authorization = request.headers.get("Authorization")
            principal = await source.authenticate(bearer_token(authorization))
    except Unauthorized:
        limits.authentication_failed(client)
        raise
    require(principal, allowed)
    roles.check(principal, request)
    return principal


def console_session_id(request: web.Request) -> str | None:
    """The console session's cookie, with an identity provider configured and no
    Authorization header in the call (a token sent wins over the cookie)."""
    config = request.app[CONFIG]
    if not config.oidc_issuer or "Authorization" in request.headers:
        return None
    return request.cookies.get(session_cookie_name(config.console_url))


async def console_principal(request: web.Request, session_id: str) -> Principal:
    app = request.app
    return await cookie_principal(
        app[CONSOLE_SESSIONS],
        app[ACCOUNTS],
        session_id,
        request.method,
        request.headers.get(CSRF_HEADER),
    )


@web.middleware
async def roles_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The role check of a route that is no authenticated endpoint (a console page):
    its shell is served to a browser that shows nothing (its token is in the tab's
    storage, sent by the page's calls), but a member who shows a token or a live console
    session is held to the route's row (`shared.roles`), and `request[PRINCIPAL]` names
    them for the page; an endpoint checks after authenticating. A session that ended
    gets the shell, which sends the browser to sign in."""
    spec = endpoint_of(request)
    access = roles.access_of(request)
    public = access is not None and access.roles is None
    if (spec is None or spec.auth is None) and not public:
        if "Authorization" in request.headers:
            request[PRINCIPAL] = await authenticate(request, client_of(request), ANY_TOKEN, True)
        elif console_session_id(request) is not None:
            with contextlib.suppress(Unauthorized):
                request[PRINCIPAL] = await authenticate(request, client_of(request), ANY_TOKEN)
    return await handler(request)


def principal_of(request: web.Request) -> Principal:
    return request[PRINCIPAL]


def load(schema: Body, data: Any) -> Any:
    try:
        if isinstance(schema, Schema):
            return schema.load(data)
        return schema.deserialize(data)
    except ValidationError as error:
        messages = (
            error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
        )
        raise ValidationFailed.of_tree(messages) from None


async def parse_body(request: web.Request, schema: Body, max_bytes: int | None) -> Any:
    app = request.app
    config = app[CONFIG]
    raw = await json_body.read(
        request,
        read_seconds=config.body_read_seconds,
        max_bytes=min(max_bytes or config.max_body_bytes, config.max_body_bytes),
    )
    return await json_body.decode(raw, app[BODY_WORKER], functools.partial(load, schema))


@dataclass(frozen=True)
class Upload:
    """A body an endpoint decodes itself: its media type and bytes."""

    media_type: str
    data: bytes


async def read_upload(request: web.Request, spec: EndpointSpec) -> Upload:
    config = request.app[CONFIG]
    data = await json_body.read(
        request,
        read_seconds=config.body_read_seconds,
        max_bytes=min(spec.body_bytes or config.max_body_bytes, config.max_body_bytes),
        media_types=spec.uploads,
    )
    return Upload(request.content_type, data)


async def list_response(schema: Body | None, items: list[Any], total: int) -> web.Response:
    """A list dumped and encoded LIST_CHUNK items at a time, letting other requests run
    between chunks: the largest at the quotas (5,000 interactions, 5.3 MB) held the event
    loop for all of its 130-245 ms of encoding (docs/reliability.md "Lists")."""
    parts = []
    for start in range(0, len(items), LIST_CHUNK):
        if start:
            await asyncio.sleep(0)
        parts.append(json.dumps(dump(schema, items[start : start + LIST_CHUNK]))[1:-1])
    return web.Response(
        text=f"[{','.join(parts)}]",
        content_type="application/json",
        headers={TOTAL_HEADER: str(total)},
    )


def dump(schema: Body | None, data: Any) -> Any:
    if schema is None:
        return data
    if isinstance(schema, Schema):
        return schema.dump(data)
    return schema.serialize("value", {"value": data})


def endpoint_of(request: web.Request) -> EndpointSpec | None:
    """What the matched route's handler declared, if it is an endpoint."""
    spec = getattr(request.match_info.route.handler, "__endpoint__", None)
    return spec if isinstance(spec, EndpointSpec) else None
