"""Channels (docs/channels.md), as written and as read: secrets are write-only."""

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from integrations_api.channels.platforms import PLATFORMS
from integrations_api.channels.repository import ACTIVE, ERROR
from integrations_api.stories.schemas import StoryRefSchema, story_id
from shared.schema_fields import WriteSchema

CREDENTIAL = fields.String(validate=validate.Length(min=1, max=1024))


def check_credentials(channel_type: str, credentials: dict[str, str]) -> None:
    """Exactly the type's credential names: a missing one and an unknown one are both
    a 400 naming it."""
    names = PLATFORMS[channel_type].credential_names
    missing = [name for name in names if name not in credentials]
    unknown = sorted(set(credentials) - set(names))
    problems = {name: ["Missing data for required field."] for name in missing}
    problems.update({name: [f"Unknown field for a {channel_type} channel."] for name in unknown})
    if problems:
        raise ValidationError({"credentials": problems})


class ChannelUpdateSchema(WriteSchema):
    """`credentials` left out keep the stored ones; sent, they replace them all. What a
    read returns can be sent back: its read-only fields are ignored."""

    read_only: tuple[str, ...] = (
        "id", "story", "type", "inboundUrl", "status", "error", "createdAt", "updatedAt"
    )  # fmt: skip

    name = fields.String(required=True, validate=validate.Length(min=1, max=128))
    credentials = fields.Dict(
        keys=fields.String(), values=CREDENTIAL, validate=validate.Length(max=8)
    )


class ChannelCreateSchema(ChannelUpdateSchema):
    read_only: tuple[str, ...] = (
        "id",
        "story",
        "inboundUrl",
        "status",
        "error",
        "createdAt",
        "updatedAt",
    )

    storyId = story_id()
    type = fields.String(required=True, validate=validate.OneOf(sorted(PLATFORMS)))
    credentials = fields.Dict(
        keys=fields.String(), values=CREDENTIAL, validate=validate.Length(max=8), required=True
    )

    @validates_schema
    def credentials_of_the_type(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("type") in PLATFORMS and "credentials" in data:
            check_credentials(data["type"], data["credentials"])


class ChannelSchema(Schema):
    id = fields.String(
        required=True,
        metadata={
            "description": "32 hexadecimal digits (128 random bits); 24 for a channel "
            "made before issue 29"
        },
    )
    story = fields.Nested(StoryRefSchema, required=True)
    type = fields.String(required=True)
    name = fields.String(required=True)
    inboundUrl = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf([ACTIVE, ERROR]))
    error = fields.String(required=True, allow_none=True)
    createdAt = fields.String(required=True)
    updatedAt = fields.String(required=True)
