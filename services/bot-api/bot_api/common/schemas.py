"""Field helpers and the envelope schemas the management API shares."""

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from bot_api.domain.settings import LANGUAGE_TAGS, language_code
from shared.envelope_schemas import created_schema, success_schema
from shared.schema_fields import FullMatch

NAME_PATTERN = FullMatch(r"^[\w-]+$", error="Only letters, digits, '_' and '-' are allowed.")
ENTITY_NAME_PATTERN = FullMatch(
    r"^(?:sys\.)?[\w-]+$",
    error="Only letters, digits, '_' and '-' are allowed, after 'sys.' for a built-in entity.",
)


def text(max_length: int, min_length: int = 0, **kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=min_length, max=max_length), **kwargs)


def text_list(
    max_items: int, max_length: int, min_items: int = 0, min_length: int = 0, **kwargs: Any
) -> fields.List[str]:
    return fields.List(
        text(max_length, min_length),
        validate=validate.Length(min=min_items, max=max_items),
        **kwargs,
    )


class LanguageCode(fields.String):
    """A story language by ISO 639-1 code or name ("de", "pt-BR", "german"), read as its
    ISO 639-1 code: how further languages and variants are named (docs/languages.md)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        given = super()._deserialize(value, attr, data, **kwargs)
        code = language_code(given)
        if code is None:
            raise ValidationError(
                f"{given!r} is no story language: give its ISO 639-1 code "
                f"({', '.join(sorted(LANGUAGE_TAGS.values()))})."
            )
        return code


def distinct(codes: list[str]) -> None:
    repeated = sorted({c for c in codes if codes.count(c) > 1})
    if repeated:
        raise ValidationError(f"{repeated[0]!r} is listed twice.")


MAX_QUERY_PARAMETERS = 99


class ParameterValue(fields.Field[Any]):
    """A parameter's value: a string, a number, a boolean or null."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if value is not None and not isinstance(value, str | int | float | bool):
            raise ValidationError("Must be a string, a number, a boolean or null.")
        if isinstance(value, str) and len(value) > 2048:
            raise ValidationError("Longer than maximum length 2048.")
        return value


SuccessSchema = success_schema("errorType")
CreatedSchema = created_schema("errorType")


class ActorSchema(Schema):
    """Who made a change (docs/teams.md "Audit log")."""

    kind = fields.String(
        required=True,
        metadata={
            "description": '"developer token", "member" or "command line" (the accounts command)'
        },
    )
    id = fields.String(required=True)
    name = fields.String(required=True)
