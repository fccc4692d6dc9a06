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

from bot_api.common.schemas import NAME_PATTERN, LanguageCode, text
from bot_api.domain.entities import Entity, is_builtin
from bot_api.domain.settings import MAX_LANGUAGES
from bot_api.entities.repository import StoredEntity, entries_document, entries_of
from shared.errors import MAX_FIELD_ERRORS
from shared.schema_fields import WriteSchema

MAX_SYNONYMS = 99
MAX_SYNONYM_LENGTH = 1024
MAX_SYNONYM_ERRORS = MAX_FIELD_ERRORS
"""A list stops being read at its 20th bad synonym: an answer lists 20 errors in all
(shared/errors.py), and reading on cost the event loop's interpreter 12 s for an entity of
2,000 entries of 99 bad synonyms (issue 29)."""


class SynonymSchema(Schema):
    value = text(MAX_SYNONYM_LENGTH, min_length=1, required=True)


class SynonymList(fields.List[dict[str, str]]):
    """`[{"value": ...}]`, declared as a list of `SynonymSchema` (so OpenAPI says so) but
    read and written in one plain pass: marshmallow's nested load takes 27 µs a synonym,
    5.4 s for an entity of 2,000 entries of 99. The errors are marshmallow's, in its shape;
    the length is checked first and a list stops at its `MAX_SYNONYM_ERRORS`th bad item."""

    def __init__(self, **kwargs: Any) -> None:
        length = validate.Length(min=1, max=MAX_SYNONYMS)
        super().__init__(fields.Nested(SynonymSchema), validate=length, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, list):
            raise self.make_error("invalid")
        for check in self.validators:
            check(value)
        errors: dict[int, Any] = {}
        for index, item in enumerate(value):
            if type(item) is dict and len(item) == 1:
                synonym = item.get("value")
                if type(synonym) is str and 0 < len(synonym) <= MAX_SYNONYM_LENGTH:
                    continue
            errors[index] = _synonym_error(item)
            if len(errors) == MAX_SYNONYM_ERRORS:
                break
        if errors:
            raise ValidationError(errors)
        return value

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return None if value is None else [{"value": item["value"]} for item in value]


def _synonym_error(item: Any) -> Any:
    """What marshmallow would say of `item`, which is not a `SynonymSchema`."""
    if item is None:
        return [fields.Field.default_error_messages["null"]]
    if not isinstance(item, dict):
        return {"_schema": [Schema._default_error_messages["type"]]}
    errors: dict[str, list[Any]] = {}
    if "value" not in item:
        errors["value"] = [fields.Field.default_error_messages["required"]]
    else:
        synonym = item["value"]
        if synonym is None:
            errors["value"] = [fields.Field.default_error_messages["null"]]
        elif not isinstance(synonym, str):
            errors["value"] = [fields.String.default_error_messages["invalid"]]
        elif not 1 <= len(synonym) <= MAX_SYNONYM_LENGTH:
            errors["value"] = [f"Length must be between 1 and {MAX_SYNONYM_LENGTH}."]
    for key in item.keys() - {"value"}:
        errors[key] = [Schema._default_error_messages["unknown"]]
    return errors


class TranslatedEntrySchema(Schema):
    """An entry in a further language: its value is the default language's (what the
    parameter is filled with), its synonyms are said in that language."""

    value = text(1024, min_length=1, required=True)
    synonyms = SynonymList(required=True)


class EntrySchema(TranslatedEntrySchema):
    @validates_schema
    def synonyms_include_value(self, entry: dict[str, Any], **kwargs: object) -> None:
        if entry["value"] not in {s["value"] for s in entry["synonyms"]}:
            raise ValidationError(
                "The synonyms must include the entry's own value.", field_name="synonyms"
            )


class EntryList(fields.List[dict[str, Any]]):
    """A list of `EntrySchema` that stops reading at its `MAX_FIELD_ERRORS`th bad entry:
    reading every one of 2,000 bad entries built 40,000 errors nobody is shown (1.1 s)."""

    def __init__(self, entry: type[Schema] = EntrySchema, **kwargs: Any) -> None:
        super().__init__(fields.Nested(entry), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, list):
            raise self.make_error("invalid")
        for check in self.validators:
            check(value)
        entries, errors = [], {}
        for index, item in enumerate(value):
            try:
                entries.append(self.inner.deserialize(item, **kwargs))
            except ValidationError as error:
                errors[index] = error.messages
                if len(errors) == MAX_FIELD_ERRORS:
                    break
        if errors:
            raise ValidationError(errors)
        return entries


def _check_unique(entries: list[dict[str, Any]], where: tuple[str, ...]) -> None:
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if entry["value"] in seen:
            error: dict[Any, Any] = {index: {"value": [f"{entry['value']!r} is already an entry."]}}
            for key in reversed(where[1:]):
                error = {key: error}
            raise ValidationError(error, field_name=where[0])
        seen.add(entry["value"])


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
    entries = EntryList(required=True, validate=validate.Length(max=2000))
    translations = fields.Dict(
        keys=LanguageCode(),
        values=EntryList(TranslatedEntrySchema, validate=validate.Length(max=2000)),
        validate=validate.Length(max=MAX_LANGUAGES + 1),
        metadata={
            "description": "ISO 639-1 code -> the entries said in that language (default "
            "none; omitted from reads when empty): docs/languages.md"
        },
    )

    @validates_schema
    def values_unique(self, entity: dict[str, Any], **kwargs: object) -> None:
        _check_unique(entity["entries"], ("entries",))
        for language, entries in entity.get("translations", {}).items():
            _check_unique(entries, ("translations", language))

    @post_load
    def to_value(self, entity: dict[str, Any], **kwargs: Any) -> Entity:
        return Entity(
            entity["name"],
            entries_of(entity["entries"]),
            {language: entries_of(e) for language, e in entity.get("translations", {}).items()},
        )


class EntitySchema(EntityWriteSchema):
    id = fields.String(required=True)

    @pre_dump
    def from_value(self, stored: StoredEntity, **kwargs: Any) -> dict[str, Any]:
        return {**entity_body(stored.entity), "id": stored.id}


def entity_body(entity: Entity) -> dict[str, Any]:
    """An entity as the API and the story document show it: its translations only when
    it has some, as before they existed."""
    body: dict[str, Any] = {"name": entity.name, "entries": entries_document(entity.entries)}
    if entity.translations:
        translated = entity.translations.items()
        body["translations"] = {code: entries_document(e) for code, e in translated}
    return body
