"""One background task at a time for work that comes in bursts: started when work is
queued and none runs, it drains the queue, then ends."""

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from shared.budget import beyond_request


class Drain:
    def __init__(self, drain: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """`drain`: works until nothing is queued."""
        self._drain = drain
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        """Start draining, unless a drain runs (it takes in what was just queued)."""
        if self._task is None or self._task.done():
            self._task = beyond_request(self._drain())

    async def idle(self) -> None:
        """Wait until everything queued so far is done."""
        while self._task is not None and not self._task.done():
            await asyncio.wait([self._task])

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
