from marshmallow import Schema, ValidationError, fields, validate

from bot_api.domain.interactions import MAX_USER_SAYS, is_required
from bot_api.schemas.common import ENTITY_NAME_PATTERN, NAME_PATTERN, text, text_list
from bot_api.schemas.responses import stored_response
from shared.ids import is_object_id
from shared.schema_fields import FullMatch, StrictBoolean, WriteSchema

TRIGGER = FullMatch(r"^[A-Za-z0-9]+$", error="A trigger is letters and digits only.")
URL = validate.URL(schemes={"http", "https"}, require_tld=False)


def webhook_target(value: str) -> None:
    """A webhook is empty, an http(s) URL, or a webhook connection's id (docs/webhooks.md)."""
    if value == "" or is_object_id(value):
        return
    try:
        URL(value)
    except ValidationError:
        raise ValidationError(
            "Must be empty, an http(s) URL, or the 24-character id of a webhook connection."
        ) from None


class ParameterSchema(WriteSchema):
    read_only = ("required",)

    alias = fields.String(required=True, validate=[validate.Length(min=1, max=128), NAME_PATTERN])
    entity = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=128), ENTITY_NAME_PATTERN],
        metadata={"description": "An entity of the account, or a built-in one (sys.number, ...)"},
    )
    prompts = text_list(99, 1024, min_length=1, load_default=list)


class ParameterReadSchema(ParameterSchema):
    required = fields.Function(
        is_required, metadata={"description": "True when the parameter has prompts (rule 1)"}
    )


class InteractionWriteSchema(WriteSchema):
    """On create, omitted fields are empty; on update they keep their stored values."""

    read_only = ("id", "type")

    name = text(1024, min_length=1, required=True)
    action = text(1024)
    triggers = fields.List(
        fields.String(validate=[validate.Length(min=1, max=50), TRIGGER]),
        validate=validate.Length(max=1024),
    )
    userSays = text_list(MAX_USER_SAYS, 2048, min_length=1)
    parameters = fields.List(fields.Nested(ParameterSchema), validate=validate.Length(max=99))
    responses = fields.List(stored_response(), validate=validate.Length(max=11))
    webhook = fields.String(validate=[validate.Length(max=1024), webhook_target])


class InteractionUpdateSchema(InteractionWriteSchema):
    name = text(1024, min_length=1)


class InteractionSchema(Schema):
    id = fields.String(required=True, attribute="_id")
    type = fields.String(required=True, metadata={"enum": ["welcome", "fallback", "standard"]})
    name = fields.String(required=True)
    action = fields.String(required=True)
    triggers = fields.List(fields.String(), required=True)
    userSays = fields.List(fields.String(), required=True)
    parameters = fields.List(fields.Nested(ParameterReadSchema), required=True)
    responses = fields.List(stored_response(), required=True)
    webhook = fields.String(required=True)


class ContextUpdateSchema(Schema):
    """An item of the contexts update; `name` and `webhook` of a summary are ignored."""

    class Meta:
        unknown = "exclude"

    id = fields.String(required=True)
    root = StrictBoolean(required=True)
    references = fields.List(fields.String(), required=True, validate=validate.Length(max=50))
    contextOut = fields.List(fields.String(), required=True, validate=validate.Length(max=50))


INTERACTION_IDS = fields.List(
    fields.String(validate=validate.Length(min=1, max=64)),
    required=True,
    validate=validate.Length(min=1, max=1000),
)
