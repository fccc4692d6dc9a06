"""Asking bot-api for a channel's turn over NATS (request/reply, docs/events.md).

A turn that gets no reply is asked again, under the same id (TURN_ID_HEADER), until
UNANSWERED_SECONDS have passed: with NATS frozen for 15 s, a turn asked early in the
freeze waited its TURN_SECONDS and was given up, although bot-api answered it once NATS
came back; the message was lost (docs/reliability.md). bot-api replies to a repeat with
the reply of the first (bot_api/query/channel_turns.py), so a turn asked twice
is answered once. The id is the message's (`turn_id`), so a message taken over from a
replica that died (channels/accepted.py) is asked under the same id again.
"""

import asyncio
import hashlib

from nats.aio.client import Client
from nats.errors import Error as NatsError
from nats.errors import TimeoutError

from shared.events import TURN_ID_HEADER, ChannelTurn, ChannelTurnReply, Subjects, decode, encode

TURN_SECONDS = 12.0
"""bot-api answers a turn within its REQUEST_BUDGET_SECONDS (10 by default), its
webhook included; two more for NATS."""
UNANSWERED_SECONDS = 60.0
"""How long a turn is asked again before the message is given up (and the failure
recorded on the channel): a NATS restart takes seconds, and a user still reads an answer
a minute late; the platform was answered at once, so nothing else waits on it."""
RETRY_SECONDS = 0.5
"""The first pause after any other NATS error (no responders: bot-api restarting),
doubling up to TURN_SECONDS."""


def turn_id(channel_id: str, delivery_id: str) -> str:
    """The id of a message's turn, whoever asks it: a replica taking over a message whose
    turn bot-api answered already gets that reply again rather than a second turn."""
    return hashlib.sha256(f"{channel_id}\n{delivery_id}".encode()).hexdigest()[:32]


class TurnUnanswered(Exception):
    """bot-api did not answer the turn (not running, or too slow)."""


class NatsTurns:
    def __init__(
        self,
        nats: Client,
        subjects: Subjects,
        wait_seconds: float = TURN_SECONDS,
        unanswered_seconds: float = UNANSWERED_SECONDS,
    ) -> None:
        self._nats = nats
        self._subjects = subjects
        self._wait_seconds = wait_seconds
        self._unanswered_seconds = unanswered_seconds

    async def ask(self, turn: ChannelTurn, turn_id: str) -> ChannelTurnReply:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._unanswered_seconds
        headers = {TURN_ID_HEADER: turn_id}
        pause = RETRY_SECONDS
        while (left := deadline - loop.time()) > 0:
            try:
                message = await self._nats.request(
                    self._subjects.channel_turn,
                    encode(turn),
                    min(self._wait_seconds, left),
                    headers=headers,
                )
            except TimeoutError:
                continue
            except NatsError:  # no responders (bot-api restarting), or reconnecting
                await asyncio.sleep(min(pause, max(0.0, deadline - loop.time())))
                pause = min(pause * 2, self._wait_seconds)
                continue
            return decode(ChannelTurnReply, message.data)
        raise TurnUnanswered(f"bot-api did not answer within {self._unanswered_seconds:g} s")
