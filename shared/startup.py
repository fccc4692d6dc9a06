"""Waiting for MongoDB and NATS at start instead of exiting: each is tried with a
growing pause between tries, each try logged once, until it answers or
STARTUP_WAIT_SECONDS have passed. Meanwhile `/readyz` answers 503 with the reason
(`shared.serving`), so a first `docker compose up` cannot leave a service dead.
"""

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")

FIRST_PAUSE_SECONDS = 0.5
LONGEST_PAUSE_SECONDS = 10.0


class StartupFailed(Exception):
    """A backing service did not answer in time; the process exits with this line."""


@dataclass
class Startup:
    """What the process still waits for before it serves; None once it serves."""

    waiting_for: str | None = "starting"


def describe(error: BaseException) -> str:
    """The error's first line, short (PyMongo's runs on with its whole topology)."""
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    text = re.split(r" \(configured timeouts|, Timeout: ", text)[0]
    return text if len(text) <= 200 else text[:197] + "..."


async def wait_for(
    startup: Startup, name: str, attempt: Callable[[], Awaitable[T]], limit_seconds: float
) -> T:
    """What `attempt` returns once it succeeds, trying again after each failure."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_seconds
    pause = FIRST_PAUSE_SECONDS
    tries = 0
    while True:
        tries += 1
        startup.waiting_for = f"connecting to {name}"
        try:
            return await attempt()
        except Exception as error:
            reason = describe(error)
            startup.waiting_for = f"{name} is not reachable yet: {reason}"
            if loop.time() + pause > deadline:
                raise StartupFailed(
                    f"{name} did not answer within {limit_seconds:g} s: {reason}"
                ) from None
            log.warning(
                "%s is not reachable (try %d; next in %g s): %s", name, tries, pause, reason
            )
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE_SECONDS)
