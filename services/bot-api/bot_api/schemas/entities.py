from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from bot_api.domain.entities import is_builtin
from bot_api.schemas.common import NAME_PATTERN, text
from shared.schema_fields import WriteSchema


class SynonymSchema(Schema):
    value = text(1024, min_length=1, required=True)


class EntrySchema(Schema):
    value = text(1024, min_length=1, required=True)
    synonyms = fields.List(
        fields.Nested(SynonymSchema), required=True, validate=validate.Length(min=1, max=99)
    )

    @validates_schema
    def synonyms_include_value(self, entry: dict[str, Any], **kwargs: object) -> None:
        if entry["value"] not in {s["value"] for s in entry["synonyms"]}:
            raise ValidationError(
                "The synonyms must include the entry's own value.", field_name="synonyms"
            )


def not_reserved(name: str) -> None:
    if is_builtin(name):
        raise ValidationError("Names beginning with 'sys.' are reserved for the built-in entities.")


class EntityWriteSchema(WriteSchema):
    read_only = ("id",)

    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=128), not_reserved, NAME_PATTERN],
        metadata={"description": "Names beginning with 'sys.' are the built-in entities'"},
    )
    entries = fields.List(
        fields.Nested(EntrySchema), required=True, validate=validate.Length(max=2000)
    )

    @validates_schema
    def values_unique(self, entity: dict[str, Any], **kwargs: object) -> None:
        seen: set[str] = set()
        for index, entry in enumerate(entity["entries"]):
            if entry["value"] in seen:
                raise ValidationError(
                    {index: {"value": [f"{entry['value']!r} is already an entry."]}},
                    field_name="entries",
                )
            seen.add(entry["value"])


class EntitySchema(EntityWriteSchema):
    id = fields.String(required=True, attribute="_id")
