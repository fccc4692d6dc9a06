"""How many replicas share an account-wide limit (shared/replicas.py), and each one's
share (shared/rates.py)."""

from shared.rates import Rate
from shared.replicas import EXPIRY_SECONDS, Replicas


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_replica_counts_itself_and_those_heard_lately() -> None:
    clock = Clock()
    replicas = Replicas(clock)
    assert replicas.live() == 1
    assert replicas.heard(replicas.me) is False  # its own announcement is no news
    assert replicas.heard("other") is True
    assert replicas.heard("other") is False
    assert replicas.live() == 2
    clock.now += EXPIRY_SECONDS + 0.1
    assert replicas.live() == 1
    assert replicas.heard("other") is True  # back after being gone: news again


def test_replicas_together_never_pass_the_whole_rate() -> None:
    assert Rate(200, 400).shared_by(2) == Rate(100, 200)
    assert Rate(10, 5).shared_by(3) == Rate(10 / 3, 1)
    assert Rate(0, 5).shared_by(2).per_second == 0  # no limit stays no limit
