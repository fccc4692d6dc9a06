"""How a marshmallow error tree reads as one line of `errorDetails`."""

import pytest

from shared.errors import ValidationFailed, first_error_path


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        ({"userSays": {3: ["Too long."]}}, ("userSays[3]", "Too long.")),
        (
            {"responses": {"0": {"buttons": {"1": {"title": ["Missing."]}}}}},
            ("responses[0].buttons[1].title", "Missing."),
        ),
        ({"_schema": ["Invalid input type."]}, ("body", "Invalid input type.")),
        (
            {"0": {"id": ["Missing data for required field."]}},
            ("[0].id", "Missing data for required field."),
        ),
        ({"settings": {"_schema": ["Invalid input type."]}}, ("settings", "Invalid input type.")),
    ],
)
def test_the_first_error_is_named_by_its_path(
    tree: dict[object, object], expected: tuple[str, str]
) -> None:
    assert first_error_path(tree) == expected


def test_a_rule_error_names_its_field_like_a_schema_error_would() -> None:
    error = ValidationFailed.at(("responses", 2), "at most one quickReply block")
    assert error.details == "responses[2]: at most one quickReply block"
    assert error.errors == {"responses": {"2": ["at most one quickReply block"]}}
    assert first_error_path(error.errors) == ("responses[2]", "at most one quickReply block")
