"""Webhook connections (SPEC.md "Webhook connection"), as written and as read."""

from marshmallow import Schema, fields, validate

from shared.schema_fields import FullMatch

URL = validate.URL(schemes={"http", "https"}, require_tld=False)
HEX_ID = FullMatch(r"^[0-9a-f]{24}$", error="Must be a 24-character hexadecimal id.")
HEADER_NAME = FullMatch(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", error="Not a valid HTTP header name.")
HEADER_VALUE = FullMatch(r"^[^\r\n\x00]*$", error="A header value cannot hold a line break.")
RESERVED_HEADERS = frozenset(
    {"content-type", "content-length", "host", "webhook-id", "webhook-timestamp",
     "webhook-signature"}
)  # fmt: skip


def not_reserved(headers: dict[str, str]) -> None:
    taken = sorted(name for name in headers if name.lower() in RESERVED_HEADERS)
    if taken:
        raise validate.ValidationError(
            f"{', '.join(taken)} cannot be set: the service sets it on every call."
        )


class AuthSchema(Schema):
    username = fields.String(required=True, validate=validate.Length(min=1, max=1024))
    password = fields.String(required=True, validate=validate.Length(min=1, max=1024))


class ConnectionUpdateSchema(Schema):
    """The whole configuration: an optional field left out is removed."""

    name = fields.String(required=True, validate=validate.Length(min=1, max=128))
    url = fields.String(required=True, validate=[validate.Length(min=1, max=1024), URL])
    token = fields.String(validate=validate.Length(min=1, max=1024))
    headers = fields.Dict(
        keys=fields.String(validate=[validate.Length(min=1, max=256), HEADER_NAME]),
        values=fields.String(validate=[validate.Length(max=1024), HEADER_VALUE]),
        validate=[validate.Length(min=1, max=10), not_reserved],
    )
    auth = fields.Nested(AuthSchema)


class ConnectionCreateSchema(ConnectionUpdateSchema):
    storyId = fields.String(required=True, validate=[validate.Length(equal=24), HEX_ID])


class StoryRefSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class ConnectionSummarySchema(Schema):
    id = fields.String(required=True)
    story = fields.Nested(StoryRefSchema, required=True)
    name = fields.String(required=True)
    url = fields.String(required=True)
    error = fields.String(required=True, allow_none=True)
    createdAt = fields.String(required=True)
    updatedAt = fields.String(required=True)


class ConnectionSchema(ConnectionSummarySchema):
    token = fields.String(required=True, allow_none=True)
    headers = fields.Dict(required=True, allow_none=True)
    auth = fields.Nested(AuthSchema, required=True, allow_none=True)


class StatusSchema(Schema):
    code = fields.Integer(required=True)
    type = fields.String(required=True)


class SuccessSchema(Schema):
    timestamp = fields.String(required=True)
    status = fields.Nested(StatusSchema, required=True)


class CreatedSchema(SuccessSchema):
    id = fields.String(required=True)
