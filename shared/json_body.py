"""Reading a request's JSON body, refusing what no endpoint could mean before any
schema sees it (docs/reliability.md "HTTP input and the OpenAPI contract").

Validation work grows with the body's shape, so a body is checked for its shape first,
in one pass that stops at the first fault: nesting deeper than any endpoint takes,
an array or object larger than any endpoint's largest list, a string that cannot be
stored (a lone surrogate), a number that is not finite or an integer beyond 64 bits.
"""

import asyncio
import json
import math
from typing import Any

from aiohttp import web

from shared.errors import BadRequest, RequestTimeout, UnsupportedMediaType

MAX_DEPTH = 32
"""Deeper than any body an endpoint takes (an interaction's buttons sit at depth 5)."""

MAX_MEMBERS = 2048
"""Members of one array or object: above the largest list an endpoint takes (an
entity's 2,000 entries), so only an absurd body reaches it."""

INT64 = range(-(2**63), 2**63)


class BodyRefused(BadRequest):
    """A body whose shape no endpoint takes."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse(raw: bytes) -> Any:
    """The JSON value of `raw`, or BadRequest saying what is wrong with it."""
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except RecursionError:
        raise BodyRefused(f"the body is nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise BadRequest(f"malformed JSON body: {error}") from None
    check_shape(value)
    return value


def check_shape(value: Any) -> None:
    """Walk `value` once (no recursion), refusing the first member out of bounds."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise BodyRefused(f"the body is nested deeper than {MAX_DEPTH} levels")
            if len(item) > MAX_MEMBERS:
                raise BodyRefused(f"an array or object holds more than {MAX_MEMBERS} members")
            members = list(item.values()) if isinstance(item, dict) else item
            if isinstance(item, dict):
                members.extend(item.keys())
            pending.extend((member, depth + 1) for member in members)
        elif isinstance(item, str):
            _check_text(item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int) and item not in INT64:
            raise BodyRefused("an integer is beyond the 64-bit range")
        elif isinstance(item, float) and not math.isfinite(item):
            raise BodyRefused("a number is too large to be stored")


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BodyRefused("a string holds a lone surrogate (\\ud800-\\udfff)") from None


async def read(request: web.Request, read_seconds: float) -> Any:
    """The body of `request` as JSON, read within `read_seconds`."""
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
    return parse(raw)
