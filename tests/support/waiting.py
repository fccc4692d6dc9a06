import asyncio
from collections.abc import Awaitable, Callable
from typing import Any


async def eventually(check: Callable[[], Awaitable[Any]], seconds: float = 2.0) -> Any:
    """The first truthy outcome of `check`, polled until `seconds` pass (for changes that
    travel over JetStream)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not (outcome := await check()):
        assert asyncio.get_running_loop().time() < deadline, "the change never arrived"
        await asyncio.sleep(0.05)
    return outcome
