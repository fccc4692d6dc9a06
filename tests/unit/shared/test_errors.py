"""How a marshmallow error tree reads as one line of `errorDetails`."""

import pytest

from shared.errors import first_error_path


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
