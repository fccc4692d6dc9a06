from datetime import UTC

from marshmallow import Schema, fields, validate

from bot_api.domain.analytics import INTERVAL_HOURS
from bot_api.history.schemas import segment_filter


class AnalyticsQuerySchema(Schema):
    """The query string of GET /stories/{story}/analytics."""

    from_ = fields.AwareDateTime(
        data_key="from",
        default_timezone=UTC,
        metadata={"description": "ISO 8601 (UTC without an offset); default: `to` less 30 days"},
    )
    to = fields.AwareDateTime(
        default_timezone=UTC, metadata={"description": "ISO 8601; default: now"}
    )
    interval = fields.String(load_default="day", validate=validate.OneOf(sorted(INTERVAL_HOURS)))
    source = segment_filter(
        "Only turns of this `default_source` (`widget`, a channel's type such as "
        "`telegram`...; conversations by their first turn's)"
    )
    channel = segment_filter("Only turns this channel (its id) carried")


class LatencySchema(Schema):
    p50 = fields.Float(required=True, allow_none=True, metadata={"description": "ms"})
    p95 = fields.Float(required=True, allow_none=True, metadata={"description": "ms"})


class FiguresSchema(Schema):
    conversations = fields.Integer(required=True)
    messages = fields.Integer(required=True)
    fallbacks = fields.Integer(required=True)
    fallbackRate = fields.Float(required=True, allow_none=True)
    containment = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "The share of conversations that never fell back"},
    )
    messagesPerConversation = fields.Float(required=True, allow_none=True)
    webhookFailures = fields.Integer(required=True)
    latency = fields.Nested(LatencySchema, required=True)


class StepSchema(FiguresSchema):
    at = fields.String(required=True, metadata={"description": "The step's start (UTC)"})


class AnsweredSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(
        required=True, allow_none=True, metadata={"description": "null once deleted"}
    )
    count = fields.Integer(required=True)


class UnansweredSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True, allow_none=True)


class AnalyticsSchema(Schema):
    firstRecorded = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The start (UTC) of the story's earliest counted hour, whatever "
            "the range; null: nothing counted yet. The console opens on the range from it"
        },
    )
    from_ = fields.String(required=True, data_key="from", attribute="from")
    to = fields.String(required=True)
    interval = fields.String(required=True)
    totals = fields.Nested(FiguresSchema, required=True)
    series = fields.List(fields.Nested(StepSchema), required=True)
    interactions = fields.List(fields.Nested(AnsweredSchema), required=True)
    unanswered = fields.List(
        fields.Nested(UnansweredSchema),
        required=True,
        metadata={"description": "The story's interactions that never answered in the range"},
    )
