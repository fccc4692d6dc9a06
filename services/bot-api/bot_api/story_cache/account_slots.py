"""Slots held per account: what one account may hold at once (compiles, reads of its
stories) without its waiting ever delaying another account (story_cache/compiler.py)."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field


@dataclass
class _Held:
    semaphore: asyncio.Semaphore
    users: int = 0
    """Holders and waiters."""
    released: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the last user goes."""


class AccountSlots:
    """At most `size` holders at once per account; one account's waiting never delays
    another's. An account's entry goes with its last holder or waiter."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._accounts: dict[str, _Held] = {}

    @contextlib.asynccontextmanager
    async def held(self, account_id: str) -> AsyncIterator[None]:
        held = self._accounts.setdefault(account_id, _Held(asyncio.Semaphore(self._size)))
        held.users += 1
        try:
            async with held.semaphore:
                yield
        finally:
            held.users -= 1
            if held.users == 0:
                del self._accounts[account_id]
                held.released.set()

    async def unused(self, account_id: str) -> None:
        """Wait until the account holds no slot and waits for none."""
        held = self._accounts.get(account_id)
        if held is not None:
            await held.released.wait()
