"""Entity bodies: a write loads into an `Entity`, a read dumps from a `StoredEntity`."""

from typing import Any

from marshmallow import (
    Schema,
    ValidationError,
    fields,
    post_load,
    pre_dump,
    validate,
    validates_schema,
)

from bot_api.domain.entities import Entity, Entry, is_builtin
from bot_api.schemas.common import NAME_PATTERN, text
from bot_api.storage.entities import StoredEntity
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

    @post_load
    def to_value(self, entity: dict[str, Any], **kwargs: Any) -> Entity:
        return Entity(
            entity["name"],
            tuple(
                Entry(entry["value"], tuple(s["value"] for s in entry["synonyms"]))
                for entry in entity["entries"]
            ),
        )


class EntitySchema(EntityWriteSchema):
    id = fields.String(required=True)

    @pre_dump
    def from_value(self, stored: StoredEntity, **kwargs: Any) -> dict[str, Any]:
        entity = stored.entity
        return {
            "name": entity.name,
            "entries": [
                {"value": entry.value, "synonyms": [{"value": s} for s in entry.synonyms]}
                for entry in entity.entries
            ],
            "id": stored.id,
        }
