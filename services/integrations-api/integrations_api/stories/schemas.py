"""The story a connection or a channel follows, as written (`storyId`) and as read
(`story`)."""

from marshmallow import Schema, ValidationError, fields, validate

from shared.ids import is_object_id


def hexadecimal_id(value: str) -> None:
    if not is_object_id(value):
        raise ValidationError("Must be a 24-character hexadecimal id.")


def story_id() -> fields.String:
    """A create's `storyId`: the 24-hex id bot-api gave the story."""
    return fields.String(required=True, validate=[validate.Length(equal=24), hexadecimal_id])


class StoryRefSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
