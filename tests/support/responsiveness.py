"""How quickly /healthz answers while an attack runs: attack tests record the p99 in
docs/reliability.md."""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from aiohttp.test_utils import TestClient

PROBE_INTERVAL_SECONDS = 0.05


@dataclass
class HealthProbe:
    latencies: list[float] = field(default_factory=list)
    failures: int = 0

    @property
    def p99_ms(self) -> float:
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]

    def report(self, name: str) -> str:
        return f"{name}: /healthz p99 {self.p99_ms:.1f} ms over {len(self.latencies)} probes"


@contextlib.asynccontextmanager
async def healthz_probed(client: TestClient) -> AsyncIterator[HealthProbe]:
    """Ask /healthz every 50 ms while the block runs; every probe must answer 200."""
    probe = HealthProbe()
    running = True

    async def sample() -> None:
        while running:
            started = time.perf_counter()
            async with client.get("/healthz") as response:
                await response.read()
                if response.status != 200:
                    probe.failures += 1
            probe.latencies.append(time.perf_counter() - started)
            await asyncio.sleep(PROBE_INTERVAL_SECONDS)

    sampler = asyncio.create_task(sample())
    try:
        yield probe
    finally:
        running = False
        await sampler
    assert probe.latencies, "/healthz was never probed"
    assert probe.failures == 0
