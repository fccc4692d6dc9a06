"""Token buckets per caller: checking a caller who never spent keeps nothing for it."""

import pytest

from shared.rates import MAX_BUCKETS, Buckets, Rate, RateLimited


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
