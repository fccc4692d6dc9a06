"""A clock for code that takes a `clock` and a `sleep`: its time passes only when that
code sleeps, so a test of retries and backoff waits no real second."""

import asyncio


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []
        """Each wait asked for, in order."""

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)  # a real sleep lets other tasks run too
