"""Reading a request's JSON body, refusing what no endpoint could mean before any
schema sees it (docs/reliability.md "HTTP input and the OpenAPI contract").

Validation work grows with the body's shape, so the shape is checked first, cheaply:
nesting deeper than any endpoint takes, an array or object larger than any endpoint's
largest list, more arrays and objects than any endpoint's body holds, a string that
cannot be stored (a lone surrogate), a number that is not finite or an integer beyond
64 bits.

A body larger than a few kilobytes is decoded by the service's body worker (one thread,
`shared.service.body_worker`), not on the event loop: a 4 MB body of small numbers
takes about a second to decode, and other requests are answered meanwhile.
"""

import asyncio
import gc
import json
import math
import re
from concurrent.futures import Executor
from typing import Any

from aiohttp import web

from shared.errors import BadRequest, RequestTimeout, UnsupportedMediaType

MAX_DEPTH = 32
"""Deeper than any body an endpoint takes (an interaction's buttons sit at depth 5)."""

MAX_MEMBERS = 2048
"""Members of one array or object: above the largest list an endpoint takes (an
entity's 2,000 entries), so only an absurd body reaches it."""

MAX_CONTAINERS = 16 * 1024
"""Arrays and objects in one body: above the most an endpoint takes (a contexts update
of 2,048 interactions holds 6,145), so only an absurd body reaches it."""

INLINE_BYTES = 8 * 1024
"""Bodies up to this size (about 2 ms to decode at most) are decoded on the event loop,
sparing the typical small request the hand-over to the worker."""

INT64 = range(-(2**63), 2**63)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class BodyRefused(BadRequest):
    """A body whose shape no endpoint takes."""


def _refuse_constant(name: str) -> Any:
    raise BodyRefused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise BodyRefused("a number is too large to be stored")
    return number


def _int64(text: str) -> int:
    number = int(text)
    if number not in INT64:
        raise BodyRefused("an integer is beyond the 64-bit range")
    return number


def parse(raw: bytes) -> Any:
    """The JSON value of `raw`, or BadRequest saying what is wrong with it."""
    try:
        value = json.loads(
            raw.decode("utf-8"),
            parse_constant=_refuse_constant,
            parse_float=_finite,
            parse_int=_int64,
        )
    except RecursionError:
        raise BodyRefused(f"the body is nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise BadRequest(f"malformed JSON body: {error}") from None
    check_shape(value)
    if _SURROGATE_ESCAPE.search(raw):
        check_text(value)
    return value


def check_shape(value: Any) -> None:
    """Refuse a value nested deeper than MAX_DEPTH, with a container of more than
    MAX_MEMBERS members or more than MAX_CONTAINERS containers in all, one level at a
    time (no recursion, containers only)."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 1
    containers = 0
    while level:
        if depth > MAX_DEPTH:
            raise BodyRefused(f"the body is nested deeper than {MAX_DEPTH} levels")
        containers += len(level)
        if containers > MAX_CONTAINERS:
            raise BodyRefused(f"the body holds more than {MAX_CONTAINERS} arrays and objects")
        below = []
        for container in level:
            if len(container) > MAX_MEMBERS:
                raise BodyRefused(f"an array or object holds more than {MAX_MEMBERS} members")
            members = container.values() if isinstance(container, dict) else container
            below.extend([m for m in members if isinstance(m, dict | list)])
        level = below
        depth += 1


def check_text(value: Any) -> None:
    """Refuse a value holding a lone surrogate, which no database can store (a JSON
    escape of D800 to DFFF makes one unless a pair makes one character of it)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BodyRefused("a string holds a lone surrogate (\\ud800-\\udfff)") from None


async def read(request: web.Request, read_seconds: float, worker: Executor) -> Any:
    """The body of `request` as JSON, read within `read_seconds`; a large one decoded by
    `worker`."""
    if request.content_type != "application/json":
        raise UnsupportedMediaType(
            f"send the body as application/json, not {request.content_type or 'nothing'}"
        )
    charset = (request.charset or "utf-8").lower()
    if charset not in {"utf-8", "utf8"}:
        raise UnsupportedMediaType(f"send the body in UTF-8, not {request.charset}")
    try:
        async with asyncio.timeout(read_seconds):
            raw = await request.read()
    except TimeoutError:
        raise RequestTimeout(f"the body did not arrive within {read_seconds:g} seconds") from None
    except ConnectionResetError:
        raise BadRequest("the connection closed before the body was complete") from None
    return await decode(raw, worker)


async def decode(raw: bytes, worker: Executor) -> Any:
    """`parse(raw)`, by `worker` when `raw` is too large to decode on the event loop."""
    if len(raw) <= INLINE_BYTES:
        return parse(raw)
    return await asyncio.get_running_loop().run_in_executor(worker, _parse_uncollected, raw)


def _parse_uncollected(raw: bytes) -> Any:
    """`parse(raw)` with the cycle collector paused. A large body can make millions of
    arrays and objects, and a collection they set off walks every object of the process
    holding the interpreter: the event loop stood still for 0.4-0.7 s. What a decoded
    body holds is freed by reference counting (JSON makes no cycles), and a body that is
    kept holds at most MAX_CONTAINERS of them."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return parse(raw)
    finally:
        if collecting:
            gc.enable()
