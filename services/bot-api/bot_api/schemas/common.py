"""Envelope schemas and field helpers the management API shares."""

from typing import Any

from marshmallow import Schema, fields, validate

from shared.schema_fields import FullMatch

NAME_PATTERN = FullMatch(r"^[\w-]+$", error="Only letters, digits, '_' and '-' are allowed.")


def text(max_length: int, min_length: int = 0, **kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=min_length, max=max_length), **kwargs)


def text_list(
    max_items: int, max_length: int, min_items: int = 0, min_length: int = 0, **kwargs: Any
) -> fields.List:
    return fields.List(
        text(max_length, min_length),
        validate=validate.Length(min=min_items, max=max_items),
        **kwargs,
    )


class StatusSchema(Schema):
    code = fields.Integer(required=True)
    errorType = fields.String(required=True)


class SuccessSchema(Schema):
    timestamp = fields.String(required=True)
    status = fields.Nested(StatusSchema, required=True)


class CreatedSchema(SuccessSchema):
    id = fields.String(required=True)
