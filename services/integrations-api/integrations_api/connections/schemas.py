"""Webhook connections (docs/api.md "Webhook connections"), as written and as read."""

from marshmallow import Schema, ValidationError, fields, validate

from integrations_api.stories.schemas import StoryRefSchema, story_id
from shared.schema_fields import FullMatch, WriteSchema
from shared.webhook_tokens import UnusableToken, signing_key

URL = validate.URL(schemes={"http", "https"}, require_tld=False)
HEADER_NAME = FullMatch(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", error="Not a valid HTTP header name.")
HEADER_VALUE = FullMatch(
    r"^[^\x00-\x08\x0a-\x1f\x7f]*$",
    error="A header value cannot hold a control character other than tab.",
)  # RFC 9110 field values; aiohttp refuses to send any other, which was a 500 per /query
RESERVED_HEADERS = frozenset(
    {"content-type", "content-length", "host", "webhook-id", "webhook-timestamp",
     "webhook-signature"}
)  # fmt: skip


def usable_token(token: str) -> None:
    try:
        signing_key(token)
    except UnusableToken as error:
        raise ValidationError(str(error)) from None


def not_reserved(headers: dict[str, str]) -> None:
    taken = sorted(name for name in headers if name.lower() in RESERVED_HEADERS)
    if taken:
        raise ValidationError(
            f"{', '.join(taken)} cannot be set: the service sets it on every call."
        )


class AuthSchema(Schema):
    username = fields.String(
        required=True,
        validate=[
            validate.Length(min=1, max=1024),
            FullMatch(r"^[^:]*$", error="A username cannot hold ':' (RFC 7617)."),
        ],
    )
    password = fields.String(required=True, validate=validate.Length(min=1, max=1024))


class ConnectionUpdateSchema(WriteSchema):
    """An optional field left out keeps its stored value; `null` removes it. What a read
    returns can be sent back: its read-only fields are ignored."""

    read_only = ("id", "story", "error", "createdAt", "updatedAt")

    name = fields.String(required=True, validate=validate.Length(min=1, max=128))
    url = fields.String(required=True, validate=[validate.Length(min=1, max=1024), URL])
    token = fields.String(
        validate=[validate.Length(min=1, max=1024), usable_token], allow_none=True
    )
    headers = fields.Dict(
        keys=fields.String(validate=[validate.Length(min=1, max=256), HEADER_NAME]),
        values=fields.String(validate=[validate.Length(max=1024), HEADER_VALUE]),
        validate=[validate.Length(min=1, max=10), not_reserved],
        allow_none=True,
    )
    auth = fields.Nested(AuthSchema, allow_none=True)


class ConnectionCreateSchema(ConnectionUpdateSchema):
    storyId = story_id()


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
