"""Reading a request's JSON body, refusing what no endpoint could mean before any
schema sees it (docs/reliability.md "HTTP input and the OpenAPI contract").

Validation work grows with the body's shape, so the shape is checked first, cheaply:
nesting deeper than any endpoint takes, an array or object larger than any endpoint's
largest list, more arrays and objects than any endpoint's body holds, a string that
cannot be stored (a lone surrogate), a number that is not finite or an integer beyond
64 bits.

A body larger than a few kilobytes is decoded and validated by the app's body worker
(one thread, `shared.service.body_worker`), not on the event loop, and a smaller one of
many arrays and objects is validated by it: the largest entity takes 0.3 s to decode and
2 s to validate, and other requests are answered meanwhile.
What the decoder does in C (building arrays, objects and strings) still holds the
interpreter: up to ~0.1 s for 4 MB of them, ~40 ms for the largest /query.
"""

import asyncio
import gc
import json
import math
import re
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

from aiohttp import web

from shared.errors import BadRequest, PayloadTooLarge, RequestTimeout, UnsupportedMediaType
from shared.keys import BODY_ARRIVING

MAX_DEPTH = 32
"""Deeper than any body an endpoint takes (an interaction's buttons sit at depth 5)."""

MAX_MEMBERS = 10_240
"""Members of one array or object: above the largest list an endpoint takes (the 10,000
turns an inbox action may resolve, which its undo sends back to `inbox/reopen`), so only
an absurd body reaches it, and a list one past its endpoint's limit is refused by the
schema, naming the field."""

MAX_CONTAINERS = 256 * 1024
"""Arrays and objects in one body: above the most an endpoint takes (an entity of 2,000
entries of 99 synonyms holds 202,002), so only an absurd body reaches it."""

INLINE_BYTES = 8 * 1024
"""Bodies up to this size (about 2 ms to decode at most) are decoded on the event loop,
sparing the typical small request the hand-over to the worker."""

INLINE_CONTAINERS = 64
"""Validating takes some 30 microseconds per array or object, more when each makes an
error (8 KiB of empty objects sent as contexts took up to 78 ms): a small body holding
more than this many is validated by the worker."""

T = TypeVar("T")

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
    return _parse_counted(raw)[0]


def _parse_counted(raw: bytes) -> tuple[Any, int]:
    """`parse(raw)`, and how many arrays and objects it holds."""
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
    containers = check_shape(value)
    if _SURROGATE_ESCAPE.search(raw):
        check_text(value)
    return value, containers


def check_shape(value: Any) -> int:
    """The number of arrays and objects `value` holds; BodyRefused if it is nested deeper
    than MAX_DEPTH, has one of more than MAX_MEMBERS members or more than MAX_CONTAINERS
    in all. Checked one level at a time (no recursion, containers only)."""
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
    return containers


def check_text(value: Any) -> None:
    """Refuse a value holding a lone surrogate, which no database can store (a JSON
    escape of D800 to DFFF makes one unless a pair makes one character of it)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BodyRefused("a string holds a lone surrogate (\\ud800-\\udfff)") from None


async def read(
    request: web.Request,
    *,
    read_seconds: float,
    max_bytes: int,
    media_types: tuple[str, ...] = ("application/json",),
) -> bytes:
    """The body of `request` (JSON unless `media_types` says more), undecoded: at most
    `max_bytes`, read within `read_seconds`."""
    if request.content_type not in media_types:
        raise UnsupportedMediaType(
            f"send the body as {' or '.join(media_types)}, not {request.content_type or 'nothing'}"
        )
    charset = (request.charset or "utf-8").lower()
    if charset not in {"utf-8", "utf8"}:
        raise UnsupportedMediaType(f"send the body in UTF-8, not {request.charset}")
    if (request.content_length or 0) > max_bytes:
        raise _too_large(max_bytes)
    request[BODY_ARRIVING] = True
    try:
        async with asyncio.timeout(read_seconds):
            raw = await request.read()
    except TimeoutError:
        raise RequestTimeout(f"the body did not arrive within {read_seconds:g} seconds") from None
    except ConnectionResetError:
        raise BadRequest("the connection closed before the body was complete") from None
    request[BODY_ARRIVING] = False
    if len(raw) > max_bytes:
        raise _too_large(max_bytes)
    return raw


def _too_large(max_bytes: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"this endpoint takes a body of at most {max_bytes} bytes")


async def decode(raw: bytes, worker: Executor, load: Callable[[Any], T]) -> T:
    """`load(parse(raw))`: the body decoded and then validated (`load`, the endpoint's
    schema). A large body is decoded and validated by `worker`; a small one of many
    arrays and objects is validated by it."""
    loop = asyncio.get_running_loop()
    if len(raw) > INLINE_BYTES:
        return await loop.run_in_executor(worker, _uncollected, lambda: load(parse(raw)))
    value, containers = _parse_counted(raw)
    if containers > INLINE_CONTAINERS:
        return await loop.run_in_executor(worker, _uncollected, lambda: load(value))
    return load(value)


class _CollectorPause:
    """The cycle collector paused while any body is decoded and validated. A large body
    can make hundreds of thousands of arrays and objects, and the collections they set
    off walk every object of the process holding the interpreter: the event loop stood
    still for 0.4-0.7 s although the decode ran in a thread. What a decoded body holds
    is freed by reference counting (JSON makes no cycles). The collector is one per
    process and each app has its worker, so the pause is counted: the last decode to end
    resumes it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._decoding = 0
        self._resume = False

    def __enter__(self) -> None:
        with self._lock:
            if self._decoding == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._decoding += 1

    def __exit__(self, *exception: object) -> None:
        with self._lock:
            self._decoding -= 1
            if self._decoding == 0 and self._resume:
                gc.enable()


COLLECTOR_PAUSE = _CollectorPause()


def _uncollected(work: Callable[[], T]) -> T:
    with COLLECTOR_PAUSE:
        return work()
