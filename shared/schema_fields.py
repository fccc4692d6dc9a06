"""Marshmallow pieces both services validate with."""

import re
from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, ValidationError, fields, pre_load, validate


class TypedUnion(fields.Field[Any]):
    """An object whose `type` picks the schema that validates the rest of it."""

    def __init__(self, choices: Mapping[str, type[Schema]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices = {name: schema() for name, schema in choices.items()}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, dict):
            raise ValidationError("Not a valid object.")
        kind = value.get("type")
        schema = self.choices.get(kind) if isinstance(kind, str) else None
        if schema is None:
            raise ValidationError({"type": [f"Must be one of: {', '.join(self.choices)}."]})
        return schema.load(value)

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        if value is None:
            return None
        return self.choices[value["type"]].dump(value)


def union_to_openapi(converter: Any, field: fields.Field[Any], **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a TypedUnion becomes `oneOf` with a discriminator
    whose mapping names each choice's schema, and each choice's `type` takes its one
    value."""
    if not isinstance(field, TypedUnion):
        return {}
    mapping: dict[str, str] = {}
    for kind, schema in field.choices.items():
        reference = converter.resolve_nested_schema(schema)["$ref"]
        mapping[kind] = reference
        component = converter.spec.components.schemas[reference.rsplit("/", 1)[-1]]
        component["properties"]["type"]["enum"] = [kind]
    return {
        "type": "object",
        "oneOf": [{"$ref": reference} for reference in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def dict_to_openapi(converter: Any, field: fields.Field[Any], **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: a Dict's Length counts properties (apispec writes it
    as minLength/maxLength, which JSON Schema applies to strings only)."""
    if not isinstance(field, fields.Dict):
        return {}
    written: dict[str, Any] = kwargs["ret"]
    counts = {"minLength": "minProperties", "maxLength": "maxProperties"}
    for length, properties in counts.items():
        if length in written:
            written[properties] = written.pop(length)
    return {}


class StrictBoolean(fields.Boolean):
    """JSON true or false only; no "yes", 1 or "true"."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, bool):
            raise ValidationError("Not a valid boolean.")
        return value


class StrictNumber(fields.Float):
    """A JSON number only; no numeric strings and no booleans."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationError("Not a valid number.")
        return super()._deserialize(value, attr, data, **kwargs)


class FullMatch(validate.Regexp):
    """A Regexp validator that matches the whole value.

    Python's `$` also matches before a final newline, so `^[a-z]+$` alone would accept
    "name\\n". The pattern stays as written for the OpenAPI document (where `$` means
    the end), and validation uses `fullmatch`.
    """

    def __init__(self, regex: str, *, error: str) -> None:
        super().__init__(regex, error=error)
        self._whole = re.compile(regex)

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str) or self._whole.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


class WriteSchema(Schema):
    """A request body that may carry back the read-only fields of what was read.

    A client reads a record, changes it and sends it back: the fields only reads have
    (`read_only`) are dropped, while any other unknown field is still an error.
    """

    read_only: tuple[str, ...] = ()

    @pre_load
    def drop_read_only(self, data: Any, **kwargs: Any) -> Any:
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if key not in self.read_only}
        return data
