"""How fast /healthz answers while an attack runs: a ping due every few milliseconds on
a fixed schedule (not one after the other), its delay counted from when it was due. A
stalled event loop shows in every ping due during the stall, not in one, even when the
pings come from the stalled loop itself (the app of an in-process test client): those
are sent late, and late counts."""

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
async def pinging(base_url: str, one_connection: bool = False) -> AsyncIterator[Pings]:
    """/healthz pinged until the block ends; the pings that fell due before it ended are
    all sent, and awaited. With `one_connection` they queue on one kept-alive connection
    rather than opening more while one is slow: an attack filling the server's connection
    cap then refuses no ping (one opened past the cap would be, by design)."""
    pings = Pings()
    timeout = aiohttp.ClientTimeout(total=PING_TIMEOUT_SECONDS)
    connector = aiohttp.TCPConnector(limit=1 if one_connection else 100)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:

        async def ping(due: float) -> None:
            try:
                async with session.get(f"{base_url}/healthz") as reply:
                    await reply.read()
                    if reply.status != 200:
                        pings.failures += 1
            except (aiohttp.ClientError, TimeoutError):
                pings.failures += 1
            pings.latencies.append(time.perf_counter() - due)

        sent: list[asyncio.Task[None]] = []
        next_due = time.perf_counter()

        def send_due() -> None:
            nonlocal next_due
            while next_due <= time.perf_counter():
                sent.append(asyncio.create_task(ping(next_due)))
                next_due += PING_EVERY_SECONDS

        async def schedule() -> None:
            while True:
                send_due()
                await asyncio.sleep(next_due - time.perf_counter())

        scheduler = asyncio.create_task(schedule())
        try:
            yield pings
        finally:
            scheduler.cancel()
            send_due()
            await asyncio.gather(*sent)


@asynccontextmanager
async def healthz_probed(client: TestClient) -> AsyncIterator[Pings]:
    """`pinging` the app a test client serves; every ping must answer 200."""
    async with pinging(str(client.make_url("")).rstrip("/")) as pings:
        yield pings
    pings.assert_answered()
