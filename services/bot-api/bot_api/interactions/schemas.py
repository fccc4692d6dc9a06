"""Interaction bodies: a create loads into an `Interaction`, an update into the fields it
gives, and a read dumps from the value."""

from typing import Any

from marshmallow import (
    Schema,
    ValidationError,
    fields,
    post_dump,
    post_load,
    validate,
    validates_schema,
)

from bot_api.common.schemas import (
    ENTITY_NAME_PATTERN,
    NAME_PATTERN,
    LanguageCode,
    text,
    text_list,
)
from bot_api.domain.interactions import (
    MAX_USER_SAYS,
    STANDARD,
    Interaction,
    Parameter,
    Translation,
)
from bot_api.domain.settings import MAX_LANGUAGES
from bot_api.domain.structure import ContextChange
from bot_api.interactions.responses import replies, stored_response
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
    promptReplies = replies(
        0,
        load_default=list,
        attribute="prompt_replies",
        metadata={
            "description": "Quick replies shown with each prompt; a click sends the reply's "
            "text. Omitted from reads when empty"
        },
    )

    @validates_schema
    def replies_need_a_prompt(self, parameter: dict[str, Any], **kwargs: Any) -> None:
        if parameter["prompt_replies"] and not parameter["prompts"]:
            raise ValidationError(
                "Replies are shown with a prompt: a parameter without prompts has none.",
                "promptReplies",
            )

    @post_load
    def to_value(self, parameter: dict[str, Any], **kwargs: Any) -> Parameter:
        return Parameter(
            parameter["alias"],
            parameter["entity"],
            tuple(parameter["prompts"]),
            tuple(parameter["prompt_replies"]),
        )


class ParameterReadSchema(ParameterSchema):
    required = fields.Function(
        lambda parameter: parameter.required,
        metadata={"description": "True when the parameter has prompts (rule 1)"},
    )

    @post_dump
    def without_empty_replies(self, parameter: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """A parameter without prompt replies reads as it did before they existed."""
        if not parameter.get("promptReplies"):
            parameter.pop("promptReplies", None)
        return parameter


class TranslatedPromptsSchema(WriteSchema):
    alias = fields.String(required=True, validate=[validate.Length(min=1, max=128), NAME_PATTERN])
    prompts = text_list(99, 1024, min_length=1, required=True)


class TranslationSchema(WriteSchema):
    """An interaction in one further language: each field omitted or empty is said as in
    the default language (docs/languages.md)."""

    userSays = text_list(MAX_USER_SAYS, 2048, min_length=1, attribute="user_says")
    responses = fields.List(stored_response(), validate=validate.Length(max=11))
    parameters = fields.List(
        fields.Nested(TranslatedPromptsSchema),
        validate=validate.Length(max=99),
        metadata={"description": "The prompts of the interaction's parameters in this language"},
    )

    @post_load
    def to_value(self, body: dict[str, Any], **kwargs: Any) -> Translation:
        return Translation(
            tuple(body.get("user_says", ())),
            tuple(body.get("responses", ())),
            {p["alias"]: tuple(p["prompts"]) for p in body.get("parameters", ())},
        )


class TranslationReadSchema(Schema):
    userSays = fields.List(fields.String(), required=True, attribute="user_says")
    responses = fields.List(stored_response(), required=True)
    parameters = fields.Function(
        lambda t: [{"alias": a, "prompts": list(p)} for a, p in t.prompts.items()],
        required=True,
        metadata={"description": "[{alias, prompts}]: the parameters' prompts in this language"},
    )


class InteractionWriteSchema(WriteSchema):
    """On create, omitted fields are empty: the body loads into a new standard
    `Interaction` (its id given when it is stored)."""

    read_only = ("id", "type")

    name = text(1024, min_length=1, required=True)
    action = text(1024)
    triggers = fields.List(
        fields.String(validate=[validate.Length(min=1, max=50), TRIGGER]),
        validate=validate.Length(max=1024),
    )
    userSays = text_list(MAX_USER_SAYS, 2048, min_length=1, attribute="user_says")
    parameters = fields.List(fields.Nested(ParameterSchema), validate=validate.Length(max=99))
    responses = fields.List(stored_response(), validate=validate.Length(max=11))
    webhook = fields.String(validate=[validate.Length(max=1024), webhook_target])
    translations = fields.Dict(
        keys=LanguageCode(),
        values=fields.Nested(TranslationSchema),
        validate=validate.Length(max=MAX_LANGUAGES + 1),
        metadata={
            "description": "ISO 639-1 code -> the interaction in that language; omitted "
            "from reads when empty: docs/languages.md"
        },
    )

    @post_load
    def to_value(self, body: dict[str, Any], **kwargs: Any) -> Any:
        return Interaction(id="", kind=STANDARD, **typed_fields(body))


class InteractionUpdateSchema(InteractionWriteSchema):
    """Loads into the given fields only, by their names in `Interaction`: omitted fields
    keep their stored values (`dataclasses.replace`)."""

    name = text(1024, min_length=1)

    @post_load
    def to_value(self, body: dict[str, Any], **kwargs: Any) -> Any:
        return typed_fields(body)


def typed_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The loaded fields as an `Interaction` holds them: lists become tuples."""
    return {name: tuple(v) if isinstance(v, list) else v for name, v in body.items()}


class InteractionSchema(Schema):
    id = fields.String(required=True)
    type = fields.String(
        required=True, attribute="kind", metadata={"enum": ["welcome", "fallback", "standard"]}
    )
    name = fields.String(required=True)
    action = fields.String(required=True)
    triggers = fields.List(fields.String(), required=True)
    userSays = fields.List(fields.String(), required=True, attribute="user_says")
    parameters = fields.List(fields.Nested(ParameterReadSchema), required=True)
    responses = fields.List(stored_response(), required=True)
    webhook = fields.String(required=True)
    translations = fields.Dict(keys=fields.String(), values=fields.Nested(TranslationReadSchema))

    @post_dump
    def without_empty_translations(self, body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """An interaction in its default language only reads as before languages existed."""
        if not body.get("translations"):
            body.pop("translations", None)
        return body


class ContextUpdateSchema(Schema):
    """An item of the contexts update; `name` and `webhook` of a summary are ignored."""

    class Meta:
        unknown = "exclude"

    id = fields.String(required=True)
    root = StrictBoolean(required=True)
    references = fields.List(fields.String(), required=True, validate=validate.Length(max=50))
    contextOut = fields.List(fields.String(), required=True, validate=validate.Length(max=50))

    @post_load
    def to_value(self, item: dict[str, Any], **kwargs: Any) -> ContextChange:
        return ContextChange(
            item["id"], item["root"], tuple(item["contextOut"]), tuple(item["references"])
        )


INTERACTION_IDS = fields.List(
    fields.String(validate=validate.Length(min=1, max=64)),
    required=True,
    validate=validate.Length(min=1, max=1000),
)
