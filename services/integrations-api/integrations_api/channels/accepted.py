"""Messages accepted and not answered yet, kept so that none is lost with the replica
that holds it (issue 34).

A platform's call is answered 200 at once, and the platform never sends it again; the
replica that accepted a message answers it in the background (`work.py`). Killed (-9)
meanwhile, it took the message with it: 2 of 200 in make bench. Now the record of the
delivery (`deliveries.py`), written before the 200, keeps the message (`shared.events`'
strict codec, at most KEPT_BYTES), the replica holding it (its id, `shared.replicas`) and
a lease. The holder renews its leases while its messages wait or run, one update for
all of them every RENEW_SECONDS; once a message is answered (or its failure recorded, or
dropped by Work's backlogs) its record drops what it kept. Every replica looks every
SWEEP_SECONDS for messages whose lease passed, its holder having stopped renewing (it
died, or stopped), and takes over at most TAKEOVERS_PER_LOOK, each by one atomic update
on its lease, so two replicas never take the same; each is answered as if just received.

bot-api is asked for the turn under the same id whoever asks (`turns.turn_id`), so a
message whose turn bot-api answered before its holder died gets that reply again, not a
second turn. Before each call to the platform the record says which call of the answer
goes (`sending`), and a message taken over sends only the calls after it: the call under
way when its holder died reached the platform or never left, so it is sent once or not at
all. Without that record, a holder killed in the middle of its sends (the bench's
stand-in takes 0.5 s a call) had those answers sent again whole: 5 of 200 came twice.

A message is answered twice only when its holder, alive but unable to renew for
LEASE_SECONDS (cut off from the database, yet reaching bot-api and the platform), answers
it after another replica took it over; or when the database refused a record's write
(`sending`, or the last one). One conversation's messages stay in order as far as one
replica takes them (oldest first): two replicas taking them over at once may answer them
in another order.
"""

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from integrations_api.channels.deliveries import DeliveryStore, Kept
from integrations_api.channels.platform import Incoming
from shared.events import UndecodableEvent, decode, encode

log = logging.getLogger(__name__)

LEASE_SECONDS = 20.0
"""How long a message stays its holder's without a renewal: four renewals may fail (the
database stalled for 15 s) before another replica takes it over, and a takeover comes
within LEASE_SECONDS + SWEEP_SECONDS (25 s) of its holder's death: the user reads an
answer late rather than never."""
RENEW_SECONDS = 5.0
"""Every 5 s the holder renews all it holds in one update (none while it holds nothing)."""
SWEEP_SECONDS = 5.0
"""Every 5 s each replica looks for leases passed: one indexed query, which finds none
but after a replica died."""
TAKEOVERS_PER_LOOK = 20
"""A replica takes over at most 20 messages a look, 4 a second on top of its own
traffic: the backlog of a dead replica is shared by those left, and Work's backlogs still
apply to what each takes."""
KEPT_BYTES = 256 * 1024
"""The largest message kept: Slack's longest text (40,000 characters) takes 240 KB at
most in JSON's escapes, other platforms' less. A longer one is recorded without it, and
answered by its holder alone."""

Key = tuple[str, str]
"""(channel id, delivery id) of a message."""


@dataclass(frozen=True)
class TakenOver:
    """A message taken over from a replica that stopped."""

    channel_id: str
    incoming: Incoming
    first_call: int
    """The first call of its answer to send: the calls before it went, or were under way."""


Resume = Callable[[TakenOver], Awaitable[None]]
"""Answer a message taken over (conversations.resume)."""


class AcceptedMessages:
    def __init__(
        self,
        store: DeliveryStore,
        holder: str,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`holder` is this replica's id; `clock` the wall clock (leases are compared
        across processes) and `sleep` what the renewals and looks wait by."""
        self.store = store
        self.holder = holder
        self._clock = clock
        self._sleep = sleep
        self.held: set[Key] = set()
        """The messages this replica holds, until each is answered."""
        self._resume: Resume | None = None
        self._keeping: asyncio.Task[None] | None = None

    async def accept(self, channel_id: str, incoming: Incoming) -> bool:
        """Whether the message is new (not the platform sending it again); if so it is
        recorded, kept and held by this replica."""
        message = encode(incoming)
        kept = None
        if len(message) <= KEPT_BYTES:
            kept = Kept(message, self.holder, _ms(self._clock() + LEASE_SECONDS))
        else:
            log.warning("channel %s: a message too long to keep, answered here alone", channel_id)
        new = await self.store.accept(channel_id, incoming.delivery_id, kept)
        if new and kept is not None:
            self.held.add((channel_id, incoming.delivery_id))
        return new

    async def done(self, channel_id: str, delivery_id: str) -> None:
        """The message needs nothing more (answered, its failure recorded, dropped)."""
        self.held.discard((channel_id, delivery_id))
        await self.store.done(channel_id, delivery_id, _ms(self._clock()))

    async def sending(self, channel_id: str, delivery_id: str, call: int) -> None:
        """The answer of a message held here sends its call `call` now. Not recorded (the
        database away), a takeover would send this call again: the answer goes on."""
        if (channel_id, delivery_id) not in self.held:
            return
        try:
            await self.store.sending(channel_id, delivery_id, call)
        except Exception as error:
            log.warning("channel %s: a call of an answer not recorded: %s", channel_id, error)

    async def renew(self) -> None:
        if self.held:
            await self.store.renew(self.holder, _ms(self._clock() + LEASE_SECONDS))

    async def take_over(self, now: float) -> list[TakenOver]:
        """The messages whose lease passed before `now` that this replica takes over, at
        most TAKEOVERS_PER_LOOK. One it holds already (its renewals failed meanwhile) is
        not taken again; one that cannot be read is dropped with a log line."""
        taken = []
        lease = _ms(now + LEASE_SECONDS)
        for _ in range(TAKEOVERS_PER_LOOK):
            accepted = await self.store.take_over(self.holder, _ms(now), lease)
            if accepted is None:
                break
            key = (accepted.channel_id, accepted.delivery_id)
            if key in self.held:
                continue
            try:
                incoming = decode(Incoming, accepted.message)
            except UndecodableEvent as error:
                log.warning("channel %s: a kept message dropped: %s", key[0], error)
                await self.store.done(*key, _ms(now))
                continue
            self.held.add(key)
            under_way = accepted.sending
            first_call = 0 if under_way is None else under_way + 1
            taken.append(TakenOver(accepted.channel_id, incoming, first_call))
        return taken

    def start(self, resume: Resume) -> None:
        """Renew and look in the background until `close`, answering each message taken
        over with `resume`."""
        self._resume = resume
        self._keeping = asyncio.create_task(self._keep())

    async def close(self) -> None:
        """Stop renewing and looking: what this replica still holds is taken over by
        another once its lease passes."""
        if self._keeping is not None:
            self._keeping.cancel()
            await asyncio.gather(self._keeping, return_exceptions=True)

    async def look(self, now: float) -> int:
        """Take over the messages whose lease passed before `now` and answer them; how
        many. One that could not be handed on is held no more, so a later look (of any
        replica) takes it again once its lease passes."""
        assert self._resume is not None, "looking before start"
        taken = await self.take_over(now)
        for message in taken:
            try:
                await self._resume(message)
            except Exception:
                log.exception("channel %s: a message taken over not answered", message.channel_id)
                self.held.discard((message.channel_id, message.incoming.delivery_id))
        return len(taken)

    async def _keep(self) -> None:
        await asyncio.gather(
            self._every(RENEW_SECONDS, "renew", self.renew),
            self._every(SWEEP_SECONDS, "look", lambda: self.look(self._clock())),
        )

    async def _every(
        self, seconds: float, what: str, step: Callable[[], Awaitable[object]]
    ) -> None:
        while True:
            try:
                await step()
            except Exception as error:
                log.warning(
                    "accepted messages: could not %s (again in %g s): %s", what, seconds, error
                )
            await self._sleep(seconds)


def _ms(seconds: float) -> int:
    """Epoch milliseconds, as the leases are stored."""
    return int(seconds * 1000)
