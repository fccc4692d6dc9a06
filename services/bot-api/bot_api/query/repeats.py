"""A turn asked again under its key is answered as it was the first time, on any
replica, and changes nothing: no second turn of the engine, webhook call, history turn
or handoff message.

Two callers repeat a turn. The gateway passes a /query to another replica when the one
it reached died before answering (deploy/gateway.conf.template: `non_idempotent` for
/query alone), under nginx's id of the request (the `Parley-Turn-Id` header, TURN_KEY_HEADER).
integrations-api asks a channel's turn again when NATS lost the reply, and a replica
that takes over a killed one's message asks under the same id (shared/events.py
TURN_ID_HEADER).

The answer is saved with the session state the turn left, in the one conditional write
of the session (query/repository.py `replies`): a repeat that finds it is answered from
it, a repeat of a turn whose save never happened runs as the first did, and of two at
once one saves and the other, its save refused, reads the session again and finds the
answer.
"""

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot_api.query.repository import TurnReply

TURN_KEY_HEADER = "Parley-Turn-Id"
TURN_KEY_CHARACTERS = 128
"""nginx's `$request_id` is 32 hexadecimal digits, integrations-api's turn id 32."""

MESSAGE_IDS = uuid.UUID("6f1d6c2e-2b7e-4c1b-9a55-5d2f0f7c9e31")
"""The namespace of the webhook message ids of turns asked under a key (`message_id`)."""

REMEMBERED_REPLIES = 3
"""Answers a session keeps: a repeat follows its first within seconds (at once through
the gateway; 12 s later from integrations-api), and a chat page sends its next message
after the answer, so only the last one or two are ever repeated. Each is /query's
answer, a few KB, written with every save of the session."""


@dataclass(frozen=True)
class TurnKey:
    key: str
    asked: str
    """What the turn asked, hashed: a client reusing a request id for another message
    is answered anew."""

    @classmethod
    def of(cls, key: str, asked: Mapping[str, Any]) -> "TurnKey":
        """The key of a turn asking `asked` (its validated /query body)."""
        text = json.dumps(asked, sort_keys=True, separators=(",", ":"), default=str)
        return cls(key, hashlib.sha256(text.encode()).hexdigest()[:32])

    def message_id(self, interaction_id: str) -> str:
        """The `messageId` (and `webhook-id`) of the turn's call to the interaction's
        webhook: the same when the turn is asked again, so a backend the first try
        reached before its replica died can tell the second call for the same one."""
        return str(uuid.uuid5(MESSAGE_IDS, f"{self.key}\n{self.asked}\n{interaction_id}"))

    def answered(self, replies: tuple[TurnReply, ...]) -> dict[str, Any] | None:
        """The answer this turn got before, or None."""
        for reply in replies:
            if reply.key == self.key and reply.asked == self.asked:
                found: dict[str, Any] = json.loads(reply.body)
                return found
        return None

    def remembered(
        self, replies: tuple[TurnReply, ...], body: Mapping[str, Any]
    ) -> tuple[TurnReply, ...]:
        """`replies` with this turn's answer last, the oldest forgotten past
        REMEMBERED_REPLIES."""
        reply = TurnReply(self.key, self.asked, json.dumps(body, separators=(",", ":")))
        return (*replies, reply)[-REMEMBERED_REPLIES:]
