"""Rate limits (docs/reliability.md "Rates"): token buckets, each request spending one.

- /query: per client address (`QUERY_CLIENT_RATE`, `QUERY_CLIENT_BURST`) and per
  session (`QUERY_SESSION_RATE`, `QUERY_SESSION_BURST`) of an account, so one visitor
  hammering is stopped without touching another; and per account
  (`QUERY_RATE`, `QUERY_BURST`), a ceiling well above any one visitor. The visitor's
  limits hold for the public key (browsers, and channels' turns); a call with the
  developer token is a server's (a backend asking for all its users from one address,
  a CI script) and is bounded by the account's limit alone.
- the management API: per account (`MANAGEMENT_RATE`, `MANAGEMENT_BURST`).
- failed authentication: per client address (`AUTH_FAILURE_RATE`, `AUTH_FAILURE_BURST`),
  checked before the token is looked up.

An account-wide limit is shared by the live replicas (shared/replicas.py): each takes
its share of the rate and the burst. An account may have its own values
(`accounts limits`, shared/auth.py `AccountLimits`). A request beyond answers 429
`rate_limited` with `Retry-After`. Only the buckets of the most recently seen callers
are kept, so no number of callers grows memory without bound.
"""

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from shared.auth import Principal, TokenKind
from shared.config import Config
from shared.errors import STATUSES, ApiError
from shared.replicas import Replicas

MAX_BUCKETS = 10_000


class RateLimited(ApiError):
    status = 429
    error_type = STATUSES[429].error_type

    def __init__(self, retry_after: float, what: str) -> None:
        seconds = max(1, math.ceil(retry_after))
        super().__init__(f"too many requests {what}; retry after {seconds} s")
        self.headers = {"Retry-After": str(seconds)}


@dataclass(frozen=True)
class Rate:
    """`per_second` requests after a burst of `burst`; 0 a second is no limit."""

    per_second: float
    burst: int

    def shared_by(self, replicas: int) -> "Rate":
        """One replica's share: together the replicas never pass the whole."""
        return Rate(self.per_second / replicas, max(1, self.burst // replicas))


@dataclass
class _Bucket:
    tokens: float
    updated: float


class Buckets:
    """One token bucket per caller, of the rate given with each request."""

    def __init__(self, what: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._what = what
        self._clock = clock
        self._buckets: OrderedDict[object, _Bucket] = OrderedDict()

    def wait(self, caller: object, rate: Rate) -> float:
        """Seconds before `caller` may make a request (0: now)."""
        if rate.per_second <= 0 or caller not in self._buckets:
            return 0.0  # a caller without a bucket has a full one: none is kept for it
        tokens = self._refilled(caller, rate).tokens
        return 0.0 if tokens >= 1 else (1 - tokens) / rate.per_second

    def check(self, caller: object, rate: Rate) -> None:
        """Raise RateLimited if `caller` has nothing left to spend."""
        waiting = self.wait(caller, rate)
        if waiting > 0:
            raise RateLimited(waiting, self._what)

    def take(self, caller: object, rate: Rate) -> None:
        """Spend one request of `caller`, or raise RateLimited."""
        self.check(caller, rate)
        self.spend(caller, rate)

    def spend(self, caller: object, rate: Rate) -> None:
        """Spend one request of `caller`, whatever is left."""
        if rate.per_second > 0:
            self._refilled(caller, rate).tokens -= 1

    def _refilled(self, caller: object, rate: Rate) -> _Bucket:
        now = self._clock()
        bucket = self._buckets.pop(caller, None) or _Bucket(float(rate.burst), now)
        bucket.tokens = min(rate.burst, bucket.tokens + (now - bucket.updated) * rate.per_second)
        bucket.updated = now
        self._buckets[caller] = bucket
        if len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)
        return bucket


class RateLimits:
    """Every rate limit of one process."""

    def __init__(
        self, config: Config, replicas: Replicas, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._config = config
        self._replicas = replicas
        self._clients = Buckets("from this address", clock)
        self._sessions = Buckets("in this session", clock)
        self._queries = Buckets("to this bot: the account's limit is reached", clock)
        self._management = Buckets("with this token", clock)
        self._failures = Buckets("with invalid tokens from this address", clock)

    def query(self, principal: Principal, client: str) -> None:
        """One /query from `client`: a visitor's (the public key) spends its address's
        limit first, so a visitor refused spends nothing of the account's; a server's
        (the developer token) only the account's."""
        config = principal.limits.applied_to(self._config)
        account = principal.account_id
        if _is_visitor(principal):
            self._clients.take(
                (account, client), Rate(config.query_client_rate, config.query_client_burst)
            )
        self._queries.take(account, self._shared(Rate(config.query_rate, config.query_burst)))

    def session(self, principal: Principal, session_id: str) -> None:
        """One /query in the session `session_id` (known once the body is read): a
        visitor's only, as for the address."""
        if not _is_visitor(principal):
            return
        config = principal.limits.applied_to(self._config)
        self._sessions.take(
            (principal.account_id, session_id),
            Rate(config.query_session_rate, config.query_session_burst),
        )

    def management(self, principal: Principal) -> None:
        config = principal.limits.applied_to(self._config)
        rate = Rate(config.management_rate, config.management_burst)
        self._management.take(principal.account_id, self._shared(rate))

    def check_authentication(self, client: str) -> None:
        """Refuse before any look-up a client whose tokens failed too often."""
        self._failures.check(client, self._failure_rate())

    def authentication_failed(self, client: str) -> None:
        self._failures.spend(client, self._failure_rate())

    def _failure_rate(self) -> Rate:
        return Rate(self._config.auth_failure_rate, self._config.auth_failure_burst)

    def _shared(self, rate: Rate) -> Rate:
        return rate.shared_by(self._replicas.live())


def _is_visitor(principal: Principal) -> bool:
    """The public key is in every page that embeds a chat: its callers are visitors,
    each limited on its own. The developer token is a secret a server holds."""
    return principal.kind is TokenKind.PUBLIC
