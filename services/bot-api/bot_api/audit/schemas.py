"""The audit log as `GET /audit` reads it (docs/teams.md "Audit log")."""

from datetime import UTC

from marshmallow import Schema, fields, validate

from bot_api.common.schemas import ActorSchema
from shared.audit import MAX_PAGE_SIZE, PAGE_SIZE

KIND = validate.Regexp(r"^[a-z-]+\.[a-z-]+$", error="A kind such as story.update.")


class AuditExportQuerySchema(Schema):
    """The query string of GET /audit/export, and of GET /audit but for its `limit`."""

    member = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "Only changes by this actor's id (`developer`: the token)"},
    )
    story = fields.String(
        validate=validate.Length(min=1, max=64), metadata={"description": "Only this story's"}
    )
    kind = fields.String(validate=KIND, metadata={"description": "Only this kind of change"})
    from_ = fields.AwareDateTime(
        data_key="from",
        default_timezone=UTC,
        metadata={"description": "ISO 8601 (UTC without an offset): changes at or after"},
    )
    to = fields.AwareDateTime(
        default_timezone=UTC, metadata={"description": "ISO 8601: changes before"}
    )
    cursor = fields.String(
        validate=validate.Length(min=1, max=200),
        metadata={"description": "`next` of the page before"},
    )


class AuditQuerySchema(AuditExportQuerySchema):
    limit = fields.Integer(
        load_default=PAGE_SIZE,
        validate=validate.Range(min=1, max=MAX_PAGE_SIZE),
        metadata={"description": f"Records per page, at most {MAX_PAGE_SIZE}"},
    )


class AuditItemSchema(Schema):
    at = fields.String(required=True, metadata={"description": "When the change was asked"})
    actor = fields.Nested(ActorSchema, required=True)
    kind = fields.String(required=True, metadata={"description": "e.g. story.update"})
    storyId = fields.String(metadata={"description": "The story changed, if any"})
    target = fields.String(required=True, metadata={"description": "The id of what changed"})
    summary = fields.String(
        required=True,
        metadata={"description": "Fields changed, short values before -> after; no secret"},
    )
    confirmed = fields.Boolean(
        required=True,
        metadata={
            "description": "false: written before the change, whose success was never "
            "confirmed (a failure midway); it may or may not have been made"
        },
    )


class AuditPageSchema(Schema):
    items = fields.List(fields.Nested(AuditItemSchema), required=True)
    next = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The cursor of the next page; null after the last"},
    )
