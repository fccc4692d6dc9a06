"""The handoff API's bodies and answers (docs/api.md "Handoffs")."""

from marshmallow import Schema, fields

from bot_api.common.schemas import text

MAX_HANDOFF_TEXT = 4096
"""Telegram's longest message, the shortest of the four platforms' limits."""


class HandoffMessageSchema(Schema):
    text = text(MAX_HANDOFF_TEXT, min_length=1, required=True)


class OpenHandoffSchema(Schema):
    sessionId = fields.String(required=True)
    connection = fields.String(required=True)
    since = fields.String(required=True, metadata={"format": "date-time"})
    lastMessageAt = fields.String(required=True, metadata={"format": "date-time"})
