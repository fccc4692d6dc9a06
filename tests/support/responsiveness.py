"""How fast /healthz answers while an attack runs: a ping every few milliseconds on a
fixed schedule (not one after the other), so a stalled event loop shows in every ping
sent during the stall, not in one."""

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import aiohttp
from aiohttp.test_utils import TestClient

PING_EVERY_SECONDS = 0.02
PING_TIMEOUT_SECONDS = 60


@dataclass
class Pings:
    latencies: list[float] = field(default_factory=list)
    failures: int = 0

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    @property
    def p99_ms(self) -> float:
        return 1000 * self.percentile(0.99)

    def assert_answered(self) -> None:
        """Every ping answered 200, and there were pings to answer."""
        assert self.latencies, "/healthz was never pinged"
        assert self.failures == 0, f"{self.failures} pings failed"

    def report(self, name: str) -> str:
        return f"{name}: /healthz p99 {self.p99_ms:.1f} ms over {len(self.latencies)} pings"


@asynccontextmanager
async def pinging(base_url: str) -> AsyncIterator[Pings]:
    """/healthz pinged until the block ends; the pings still in flight are awaited."""
    pings = Pings()
    timeout = aiohttp.ClientTimeout(total=PING_TIMEOUT_SECONDS)
    async with aiohttp.ClientSession(timeout=timeout) as session:

        async def ping() -> None:
            started = time.perf_counter()
            try:
                async with session.get(f"{base_url}/healthz") as reply:
                    await reply.read()
                    if reply.status != 200:
                        pings.failures += 1
            except (aiohttp.ClientError, TimeoutError):
                pings.failures += 1
            pings.latencies.append(time.perf_counter() - started)

        sent: list[asyncio.Task[None]] = []
        stop = asyncio.Event()

        async def schedule() -> None:
            while not stop.is_set():
                sent.append(asyncio.create_task(ping()))
                await asyncio.sleep(PING_EVERY_SECONDS)

        scheduler = asyncio.create_task(schedule())
        try:
            yield pings
        finally:
            stop.set()
            await scheduler
            await asyncio.gather(*sent)


@asynccontextmanager
async def healthz_probed(client: TestClient) -> AsyncIterator[Pings]:
    """`pinging` the app a test client serves; every ping must answer 200."""
    async with pinging(str(client.make_url("")).rstrip("/")) as pings:
        yield pings
    pings.assert_answered()
