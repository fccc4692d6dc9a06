"""The handoff API's bodies and answers (docs/api.md "Handoffs", docs/teams.md "The agent
desk")."""

from marshmallow import Schema, fields

from bot_api.common.schemas import text

MAX_HANDOFF_TEXT = 4096
"""Telegram's longest message, the shortest of the four platforms' limits."""


class HandoffMessageSchema(Schema):
    text = text(MAX_HANDOFF_TEXT, min_length=1, required=True)


class DeskPersonSchema(Schema):
    name = fields.String(required=True)
    role = fields.String(required=True)


class OpenHandoffSchema(Schema):
    sessionId = fields.String(required=True)
    connection = fields.String(required=True)
    since = fields.String(required=True, metadata={"format": "date-time"})
    lastMessageAt = fields.String(required=True, metadata={"format": "date-time"})
    userName = fields.String(
        required=True,
        metadata={
            "description": "The user as the channel named them, else a short label of the "
            'session ("Telegram user 77", "Visitor 3f9a")'
        },
    )
    channel = fields.String(
        required=True,
        metadata={"description": "The channel the user writes on: Telegram, Slack, Widget..."},
    )
    takenBy = fields.Nested(
        DeskPersonSchema,
        allow_none=True,
        required=True,
        metadata={"description": "Who at the desk took the conversation over; null: nobody"},
    )


class DeskEntrySchema(Schema):
    id = fields.String(required=True, metadata={"description": "The line's id, stable"})
    at = fields.String(required=True, metadata={"format": "date-time"})
    speaker = fields.String(required=True, metadata={"enum": ["user", "bot", "person", "note"]})
    text = fields.String(required=True)
    person = fields.Nested(DeskPersonSchema, allow_none=True, required=True)


class DeskConversationSchema(Schema):
    sessionId = fields.String(required=True)
    handoff = fields.Nested(
        OpenHandoffSchema,
        allow_none=True,
        required=True,
        metadata={"description": "The open handoff; null once given back"},
    )
    transcript = fields.List(
        fields.Nested(DeskEntrySchema),
        required=True,
        metadata={"description": "Oldest first: the history's turns, and those being written"},
    )


class DeskNewsSchema(Schema):
    """The `data` of each `desk` event of the stream."""

    sessionId = fields.String(required=True)
    entry = fields.Nested(
        DeskEntrySchema,
        allow_none=True,
        required=True,
        metadata={"description": "A new line of the conversation; null: only the list changed"},
    )
    listChanged = fields.Boolean(
        required=True,
        metadata={"description": "The story's open handoffs changed: read the list again"},
    )
