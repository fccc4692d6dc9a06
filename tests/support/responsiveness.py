"""Is the service still answering while an attack runs? `/healthz` is asked every 10 ms
beside it, and each answer's delay is kept, counted from when the probe was due, so a
stalled event loop shows in full even though no probe could be sent during the stall
(docs/reliability.md)."""

import asyncio
import contextlib
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiohttp

PROBE_INTERVAL_SECONDS = 0.01


@dataclass
class HealthProbes:
    statuses: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    @property
    def p99_ms(self) -> float:
        if len(self.seconds) < 2:
            return 1000 * max(self.seconds, default=0.0)
        return 1000 * statistics.quantiles(self.seconds, n=100, method="inclusive")[98]

    def assert_answered(self) -> None:
        """Every probe answered 200, and there were probes to answer."""
        assert self.statuses, "/healthz was never asked"
        assert set(self.statuses) == {200}, self.statuses


@contextlib.asynccontextmanager
async def healthz_probed(base_url: str) -> AsyncIterator[HealthProbes]:
    """Ask `base_url`/healthz every 10 ms on a connection of its own while the block runs."""
    probes = HealthProbes()

    async def probe(session: aiohttp.ClientSession) -> None:
        due = time.perf_counter()
        while True:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            async with session.get(f"{base_url}/healthz") as reply:
                await reply.read()
                probes.statuses.append(reply.status)
            probes.seconds.append(time.perf_counter() - due)
            due += PROBE_INTERVAL_SECONDS

    async with aiohttp.ClientSession() as session:
        prober = asyncio.create_task(probe(session))
        try:
            yield probes
        finally:
            prober.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await prober
