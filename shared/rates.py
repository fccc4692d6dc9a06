"""Per-token rate limits (docs/reliability.md): a token bucket per account and token
kind, one for /query (`QUERY_RATE`, `QUERY_BURST`) and one for the management API
(`MANAGEMENT_RATE`, `MANAGEMENT_BURST`). A request beyond answers 429 `rate_limited`
with `Retry-After`. Only the buckets of the most recently seen tokens are kept, so no
number of callers grows memory without bound."""

import math
import time
from collections import OrderedDict
from dataclasses import dataclass

from shared.errors import STATUSES, ApiError

MAX_BUCKETS = 10_000


class RateLimited(ApiError):
    status = 429
    error_type = STATUSES[429].error_type

    def __init__(self, retry_after: float) -> None:
        seconds = max(1, math.ceil(retry_after))
        super().__init__(f"too many requests with this token; retry after {seconds} s")
        self.headers = {"Retry-After": str(seconds)}


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimit:
    """`rate` requests a second after a burst of `burst`; a rate of 0 is no limit."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: OrderedDict[object, _Bucket] = OrderedDict()

    def take(self, caller: object) -> None:
        """Spend one request of `caller`, or raise RateLimited."""
        if self.rate <= 0:
            return
        now = time.monotonic()
        bucket = self._buckets.pop(caller, None) or _Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        self._buckets[caller] = bucket
        if len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)
        if bucket.tokens < 1:
            raise RateLimited((1 - bucket.tokens) / self.rate)
        bucket.tokens -= 1
