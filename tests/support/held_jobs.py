"""Jobs for shared/fair_work.py's threads that a test holds until it lets them go, so a
test orders what runs by events rather than by timing."""

import threading
from collections.abc import Callable

from tests.support.waiting import eventually

WAIT = 10.0
"""Seconds a test waits for a thread before it fails; nothing here takes that long."""


def held(started: list[str], name: str, release: threading.Event) -> Callable[[], str]:
    """A job that notes its start in `started`, then waits for `release`; its value: `name`."""

    def job() -> str:
        started.append(name)
        assert release.wait(WAIT)
        return name

    return job


async def until(condition: Callable[[], bool]) -> None:
    """Wait until `condition` holds (set by another thread), at most `WAIT` seconds."""

    async def holds() -> bool:
        return condition()

    await eventually(holds, WAIT)
