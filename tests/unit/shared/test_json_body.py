"""The shape check a JSON body passes before any schema sees it, at its boundaries, and
where a body is decoded."""

import asyncio
import gc
import json
import threading
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from shared.errors import BadRequest
from shared.json_body import (
    COLLECTOR_PAUSE,
    INLINE_BYTES,
    INLINE_CONTAINERS,
    MAX_CONTAINERS,
    MAX_DEPTH,
    MAX_MEMBERS,
    decode,
    parse,
)


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_nesting_up_to_the_limit_is_taken_and_one_more_is_refused() -> None:
    assert parse(nested(MAX_DEPTH)) is not None
    with pytest.raises(BadRequest, match="nested deeper than 32"):
        parse(nested(MAX_DEPTH + 1))
    with pytest.raises(BadRequest, match="nested deeper than 32"):
        parse(nested(100_000))  # deeper than the JSON decoder recurses


def test_members_up_to_the_limit_are_taken_and_one_more_is_refused() -> None:
    assert len(parse(json.dumps(list(range(MAX_MEMBERS))).encode())) == MAX_MEMBERS
    assert (
        len(parse(json.dumps({"a": {str(i): i for i in range(MAX_MEMBERS)}}).encode())["a"])
        == MAX_MEMBERS
    )
    with pytest.raises(BadRequest, match=f"more than {MAX_MEMBERS} members"):
        parse(json.dumps({"a": [{str(i): i for i in range(MAX_MEMBERS + 1)}]}).encode())


def holding(containers: int) -> bytes:
    """A body of `containers` arrays in all: rows of at most MAX_MEMBERS empty arrays."""
    rows: list[list[list[Any]]] = []
    left = containers - 1
    while left:
        size = min(MAX_MEMBERS, left - 1)
        rows.append([[]] * size)
        left -= size + 1
    return json.dumps(rows).encode()


def test_containers_up_to_the_limit_are_taken_and_one_more_is_refused() -> None:
    """With the collector paused, as `decode` parses every body this large: with it on,
    its collections made this test take 2.3-3.5 s instead of 0.4-0.5 s."""
    largest = holding(MAX_CONTAINERS)
    with COLLECTOR_PAUSE:
        assert parse(largest) == json.loads(largest)
        with pytest.raises(BadRequest, match="more than 262144 arrays and objects"):
            parse(holding(MAX_CONTAINERS + 1))


@pytest.mark.parametrize(
    "body", [b'"\\ud800"', b'{"\\udfff": 1}', b'["ok", "a\\ud83d"]', b'"\\udf55\\ud83c"']
)
def test_a_lone_surrogate_is_refused(body: bytes) -> None:
    with pytest.raises(BadRequest, match="lone surrogate"):
        parse(body)


def test_a_surrogate_pair_and_an_escaped_backslash_are_text() -> None:
    assert parse(b'"\\ud83c\\udf55"') == "\U0001f355"
    assert parse(b'"\\\\ud800"') == "\\ud800"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"NaN", "NaN is not a JSON number"),
        (b"[-Infinity]", "-Infinity is not a JSON number"),
        (b"1e999", "too large to be stored"),
        (b"9223372036854775808", "beyond the 64-bit range"),
        (b"-9223372036854775809", "beyond the 64-bit range"),
    ],
)
def test_numbers_that_cannot_be_stored_are_refused(body: bytes, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        parse(body)


def test_the_largest_storable_numbers_are_taken() -> None:
    assert parse(b"[9223372036854775807, -9223372036854775808, 1.7e308]") == [
        2**63 - 1,
        -(2**63),
        1.7e308,
    ]


def as_decoded(value: Any) -> Any:
    return value


async def loop_turns_while(work: Awaitable[Any]) -> tuple[Any, int]:
    """What `work` gives, and how many times the event loop ran another task meanwhile."""
    turns = 0

    async def count() -> None:
        nonlocal turns
        while True:
            await asyncio.sleep(0)
            turns += 1

    counter = asyncio.create_task(count())
    await asyncio.sleep(0)
    started = turns
    try:
        return await work, turns - started
    finally:
        counter.cancel()


async def test_a_large_body_is_decoded_while_the_event_loop_runs_on() -> None:
    """200,000 numbers: a tenth of a second or more to decode, during which the loop
    gets the interpreter at least once per switch interval (5 ms); decoded on the loop,
    it would turn not once."""
    rows = [list(range(2000))] * 100
    body = json.dumps(rows).encode()
    with ThreadPoolExecutor(max_workers=1) as worker:
        value, turns = await loop_turns_while(decode(body, worker, as_decoded))
    assert value == rows
    assert turns >= 5


async def test_a_small_body_is_decoded_at_once() -> None:
    body = json.dumps({"numbers": list(range(1000))}).encode()
    assert len(body) <= INLINE_BYTES
    with ThreadPoolExecutor(max_workers=1) as worker:
        value, turns = await loop_turns_while(decode(body, worker, as_decoded))
    assert value == {"numbers": list(range(1000))}
    assert turns == 0


async def test_no_collection_runs_while_a_large_body_is_decoded() -> None:
    """The 400,000 lists of this body would set off hundreds of collections (570 here),
    which can walk every object of the process with the interpreter held: the event loop
    stood still for 0.4 s. One or two may run as the worker's thread starts or hands back
    the answer, with the collector on."""
    in_worker: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and threading.current_thread().name.startswith("body"):
            in_worker.append(info["generation"])

    body = b"[" + b", ".join(b"[%d]" % n for n in range(400_000)) + b"]"  # no list made here
    gc.callbacks.append(count)
    try:
        with (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="body") as worker,
            pytest.raises(BadRequest, match=f"more than {MAX_MEMBERS} members"),
        ):
            await decode(body, worker, as_decoded)
    finally:
        gc.callbacks.remove(count)
    assert len(in_worker) < 10, in_worker


async def test_large_bodies_and_small_ones_of_many_containers_are_validated_aside() -> None:
    """Validating the largest entity takes marshmallow 2 s; 8 KiB of empty objects sent as
    contexts up to 78 ms."""

    def where(value: Any) -> str:
        return threading.current_thread().name

    large = json.dumps([list(range(2000))] * 3).encode()
    many = json.dumps([{}] * (INLINE_CONTAINERS + 1)).encode()
    few = json.dumps([{}] * (INLINE_CONTAINERS - 1)).encode()
    assert len(many) <= INLINE_BYTES < len(large)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="body") as worker:
        assert (await decode(large, worker, where)).startswith("body")
        assert (await decode(many, worker, where)).startswith("body")
        assert await decode(few, worker, where) == threading.current_thread().name


def test_the_collector_pause_is_counted_and_the_last_decode_to_end_resumes_it() -> None:
    """Two apps in one process (each with its worker) may decode at once."""
    assert gc.isenabled()
    with COLLECTOR_PAUSE:
        with COLLECTOR_PAUSE:
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with COLLECTOR_PAUSE:
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
