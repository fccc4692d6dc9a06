"""Asking bot-api for a channel's turn over NATS (request/reply, docs/events.md)."""

from nats.aio.client import Client
from nats.errors import NoRespondersError, TimeoutError

from shared.events import ChannelTurn, ChannelTurnReply, Subjects, decode, encode

TURN_SECONDS = 12.0
"""bot-api answers a turn within its REQUEST_BUDGET_SECONDS (10 by default), its
webhook included; two more for NATS."""


class TurnUnanswered(Exception):
    """bot-api did not answer the turn (not running, or too slow)."""


class NatsTurns:
    def __init__(self, nats: Client, subjects: Subjects) -> None:
        self._nats = nats
        self._subjects = subjects

    async def ask(self, turn: ChannelTurn) -> ChannelTurnReply:
        try:
            message = await self._nats.request(
                self._subjects.channel_turn, encode(turn), TURN_SECONDS
            )
        except (NoRespondersError, TimeoutError):
            raise TurnUnanswered("bot-api does not answer") from None
        return decode(ChannelTurnReply, message.data)
