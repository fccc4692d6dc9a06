"""Field helpers and the envelope schemas the management API shares."""

from typing import Any

from marshmallow import ValidationError, fields, validate

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
