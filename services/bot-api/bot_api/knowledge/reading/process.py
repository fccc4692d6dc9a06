"""The parent's side of the child process: at most MAX_CHILDREN at once, each given the
file on stdin, killed after CHILD_WALL_SECONDS, its answer read up to
MAX_CHILD_OUTPUT_BYTES and checked before it becomes an `Extracted`."""

import asyncio
import contextlib
import json
import signal
import sys
from typing import Any, TypeVar

from bot_api.knowledge.blocks import Block, DocumentRefused, Extracted
from bot_api.knowledge.reading.limits import (
    CHILD_WALL_SECONDS,
    MAX_CHILD_OUTPUT_BYTES,
    MAX_CHILDREN,
)

T = TypeVar("T")
CHILD = ("-m", "bot_api.knowledge.reading.child")
"""The child's command after `sys.executable`, then the media type (tests replace it)."""
REFUSALS = ("unsupported", "too_large", "unreadable", "timed_out")
_slots: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}


def slots() -> asyncio.Semaphore:
    """The running loop's semaphore of children: one per loop, since a semaphore used in
    one loop cannot be awaited in another (each test has its own)."""
    loop = asyncio.get_running_loop()
    for other in [other for other in _slots if other.is_closed()]:
        del _slots[other]
    if loop not in _slots:
        _slots[loop] = asyncio.Semaphore(MAX_CHILDREN)
    return _slots[loop]


async def read_in_child(content: bytes, media_type: str) -> Extracted:
    """The file read by a fresh `python -m bot_api.knowledge.reading.child`."""
    async with slots():
        return await run_child(content, media_type)


async def run_child(content: bytes, media_type: str) -> Extracted:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        *CHILD,
        media_type,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(CHILD_WALL_SECONDS):
            output = await exchange(child, content)
            code = await child.wait()
    except TimeoutError:
        raise DocumentRefused(
            "timed_out", f"reading the file took over {CHILD_WALL_SECONDS:.0f} s"
        ) from None
    finally:
        if child.returncode is None:
            child.kill()
            # read to the end what the killed child left in its pipe: with its stdout
            # unread (too much output), waiting for it alone hung the suite's worker
            await child.communicate()
    if code == -signal.SIGXCPU:
        raise DocumentRefused("timed_out", "reading the file took too much CPU time")
    if code < 0:
        raise DocumentRefused("unreadable", f"the reader died of signal {-code}")
    return parse_answer(output)


async def exchange(child: asyncio.subprocess.Process, content: bytes) -> bytes:
    """The file written to the child's stdin while its stdout is read, at most
    MAX_CHILD_OUTPUT_BYTES (beyond, the child is killed: `unreadable`)."""
    assert child.stdin is not None and child.stdout is not None

    async def write() -> None:
        assert child.stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            child.stdin.write(content)
            await child.stdin.drain()
            child.stdin.close()

    writing = asyncio.create_task(write())
    try:
        chunks: list[bytes] = []
        size = 0
        while chunk := await child.stdout.read(1024 * 1024):
            size += len(chunk)
            if size > MAX_CHILD_OUTPUT_BYTES:
                raise DocumentRefused("unreadable", "the reader answered too much")
            chunks.append(chunk)
        await writing
        return b"".join(chunks)
    finally:
        writing.cancel()


def parse_answer(output: bytes) -> Extracted:
    """The child's JSON as an `Extracted` or its refusal; anything else is `unreadable`."""
    try:
        answer: Any = json.loads(output)
        if "refused" in answer:
            kind = answer["refused"]
            if kind not in REFUSALS:
                raise ValueError(kind)
            raise DocumentRefused(kind, str(answer["message"]))
        title = answer["title"]
        blocks = tuple(
            Block(
                check(b["text"], str),
                tuple(check(h, str) for h in b["heading"]),
                None if b["page"] is None else check(b["page"], int),
            )
            for b in answer["blocks"]
        )
        return Extracted(blocks, None if title is None else check(title, str))
    except (ValueError, KeyError, TypeError) as e:
        raise DocumentRefused("unreadable", "the reader gave no answer") from e


def check(value: object, kind: type[T]) -> T:
    """`value` if it is of `kind` (the child's JSON is not trusted), else TypeError."""
    if not isinstance(value, kind):
        raise TypeError(value)
    return value
