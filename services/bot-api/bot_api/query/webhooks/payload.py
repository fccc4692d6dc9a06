"""What a webhook call sends (docs/webhooks.md): the webhook-block fields a backend
expects, plus `sessionId` and `result`, the query result as it stands before the call;
and what a handoff connection receives of each user message."""

import json
import uuid
from typing import Any

from bot_api.connections.repository import Connection
from bot_api.domain.interactions import Interaction
from bot_api.engine.turn import Outcome, Turn
from bot_api.query.answer_body import result_body

WEBHOOK_NODE = "WEBHOOK"


def request_body(
    session_id: str,
    interaction: Interaction,
    turn: Turn,
    outcome: Outcome,
    connection: Connection | None,
    message_id: str,
) -> dict[str, Any]:
    parameters = outcome.parameters
    return {
        "chatId": session_id,
        "messageId": message_id,
        "userId": session_id,
        "externalId": session_id,
        "blockId": interaction.id,
        "node": {
            "name": interaction.name,
            "type": WEBHOOK_NODE,
            "webhookId": "" if connection is None else connection.id,
            "webhookName": "" if connection is None else connection.name,
        },
        "userAttributes": {k: v for k, v in parameters.items() if k.startswith("default_")},
        "attributes": {k: _attribute(v) for k, v in parameters.items()},
        "sessionId": session_id,
        "result": result_body(turn, outcome),
    }


def handoff_body(session_id: str, turn: Turn, outcome: Outcome) -> dict[str, Any]:
    """A user's message while a person has the conversation: exactly one of `query`,
    `trigger` and `goto` in `message`, as the user's client sent it."""
    sent = {"query": turn.query, "trigger": turn.trigger, "goto": turn.goto}
    return {
        "type": "handoff",
        "messageId": str(uuid.uuid4()),
        "storyId": outcome.story_id,
        "sessionId": session_id,
        "message": {name: value for name, value in sent.items() if value is not None},
        "parameters": dict(outcome.parameters),
    }


def _attribute(value: Any) -> str:
    """Attributes are strings (SPEC); a built-in entity's object value (an amount of
    money, a range of times) is sent as its JSON text."""
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, dict) else str(value)
