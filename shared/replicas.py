"""How many replicas of this service are alive, so each takes its share of an
account-wide rate limit (shared/rates.py).

Every replica announces itself on `<ns>.replicas.<service>.v1` (core NATS;
`shared.service.replicas_context`) every `HEARTBEAT_SECONDS`, and at once when it hears
a replica it did not know, so a new replica is counted by all within a round trip. A
replica not heard for `EXPIRY_SECONDS` is gone. Without NATS a replica counts only
itself and takes the whole limit: the limits then hold per replica, never refusing more
than they should.
"""

import time
import uuid
from collections.abc import Callable

HEARTBEAT_SECONDS = 2.0
EXPIRY_SECONDS = 3 * HEARTBEAT_SECONDS  # two heartbeats may be lost


class Replicas:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.me = uuid.uuid4().hex
        self._clock = clock
        self._heard: dict[str, float] = {}

    def heard(self, replica: str) -> bool:
        """Note that `replica` is alive; whether it is news."""
        now = self._clock()
        news = self._heard.get(replica, float("-inf")) <= now - EXPIRY_SECONDS
        self._heard[replica] = now
        return news and replica != self.me

    def live(self) -> int:
        """This replica and those heard from lately."""
        since = self._clock() - EXPIRY_SECONDS
        self._heard = {r: at for r, at in self._heard.items() if at > since}
        return 1 + sum(1 for replica in self._heard if replica != self.me)
