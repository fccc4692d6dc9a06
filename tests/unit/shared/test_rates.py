"""Token buckets per caller: checking a caller who never spent keeps nothing for it; a
visitor (the public key) is limited per address and session, a server (the developer
token) by its account's limit alone."""

import dataclasses

import pytest

from shared.auth import Principal, TokenKind
from shared.config import Config
from shared.rates import MAX_BUCKETS, Buckets, Rate, RateLimited, RateLimits
from shared.replicas import Replicas


def test_callers_only_checked_do_not_push_out_a_refused_callers_bucket() -> None:
    """The failed-token limit is checked on every authenticated request: ordinary traffic
    must not make room by forgetting a client that failed too often."""
    failures = Buckets("failed authentication")
    rate = Rate(per_second=1, burst=2)
    for _ in range(3):
        failures.spend("attacker", rate)

    for client in range(MAX_BUCKETS + 1):
        failures.check(f"good-{client}", rate)

    with pytest.raises(RateLimited):
        failures.check("attacker", rate)


class FrozenClock:
    """Time stands still: no bucket refills between two requests."""

    def __call__(self) -> float:
        return 1000.0


def limits(**settings: float) -> RateLimits:
    config = dataclasses.replace(Config(mongodb_url="", nats_url=""), **settings)
    return RateLimits(config, Replicas(FrozenClock()), FrozenClock())


DEVELOPER = Principal("account-1", TokenKind.DEVELOPER)
PUBLIC = Principal("account-1", TokenKind.PUBLIC)


def test_a_server_with_the_developer_token_is_not_limited_as_one_visitor() -> None:
    """A backend asking /query for all its users from one address, in one session or
    many: 50 at once all pass (a visitor's address allows 30, its session 10)."""
    rates = limits()
    for number in range(50):
        rates.query(DEVELOPER, "10.0.0.1")
        rates.session(DEVELOPER, "ci" if number % 2 else f"user-{number}")


def test_the_public_key_is_still_limited_per_address_and_per_session() -> None:
    rates = limits()
    for _ in range(30):
        rates.query(PUBLIC, "10.0.0.1")
    with pytest.raises(RateLimited, match="from this address"):
        rates.query(PUBLIC, "10.0.0.1")
    rates.query(PUBLIC, "10.0.0.2")
    for _ in range(10):
        rates.session(PUBLIC, "visitor")
    with pytest.raises(RateLimited, match="in this session"):
        rates.session(PUBLIC, "visitor")


def test_the_account_limit_still_bounds_the_developer_token() -> None:
    rates = limits(query_rate=10.0, query_burst=40)
    for _ in range(40):
        rates.query(DEVELOPER, "10.0.0.1")
    with pytest.raises(RateLimited, match="the account's limit"):
        rates.query(DEVELOPER, "10.0.0.1")
    with pytest.raises(RateLimited, match="the account's limit"):
        rates.query(PUBLIC, "10.0.0.9")
