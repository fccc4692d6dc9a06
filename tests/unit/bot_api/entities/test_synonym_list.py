"""An entry's synonyms are read in one plain pass (bot_api/entities/schemas.py): each
list says what marshmallow's nested `SynonymSchema` says of it, in the same shape, and a
list stops at its 20th bad synonym."""

from typing import Any

import pytest
from marshmallow import Schema, ValidationError, fields, validate

from bot_api.entities.schemas import MAX_SYNONYM_ERRORS, EntrySchema, SynonymSchema


class NestedEntrySchema(EntrySchema):
    """The declaration the plain pass stands for."""

    synonyms = fields.List(
        fields.Nested(SynonymSchema), required=True, validate=validate.Length(min=1, max=99)
    )


def errors_of(schema: Schema, synonyms: Any) -> Any:
    try:
        schema.load({"value": "v", "synonyms": synonyms})
    except ValidationError as error:
        return error.messages
    return None


@pytest.mark.parametrize(
    "synonyms",
    [
        [{"value": "v"}, {"value": "w"}],
        [{"value": "v"}, {"value": ""}],
        [{"value": "v"}, {"value": "x" * 1025}],
        [{"value": "v"}, {"value": "x" * 1024}],
        [{"value": 5}, {"value": None}, {}, None, "x", 3, {"value": "v", "other": 1}],
        [{"value": "w"}],
        [],
        [{"value": "v"}] * 100,
        "v",
        {"value": "v"},
        None,
    ],
)
def test_the_plain_pass_says_what_the_nested_schema_says(synonyms: Any) -> None:
    assert errors_of(EntrySchema(), synonyms) == errors_of(NestedEntrySchema(), synonyms)


def test_a_list_stops_at_its_20th_bad_synonym() -> None:
    errors = errors_of(EntrySchema(), [{"value": ""}] * 99)
    assert sorted(errors["synonyms"]) == list(range(MAX_SYNONYM_ERRORS))
