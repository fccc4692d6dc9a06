"""How a marshmallow error tree reads as one line of `errorDetails`."""

import pytest

from shared.errors import MAX_FIELD_ERRORS, ValidationFailed, first_error_path


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


def test_a_tree_of_many_errors_lists_the_first_ones_and_counts_the_rest() -> None:
    tree = {
        "entries": {str(i): {"value": ["Too long."], "synonyms": ["Empty."]} for i in range(50)}
    }
    error = ValidationFailed.of_tree(tree)
    assert (
        error.details == f"entries[0].value: Too long. (and {100 - MAX_FIELD_ERRORS} more errors)"
    )
    assert error.errors is not None
    listed = [m for entry in error.errors["entries"].values() for ms in entry.values() for m in ms]
    assert len(listed) == MAX_FIELD_ERRORS
    assert error.errors["entries"]["0"] == {"value": ["Too long."], "synonyms": ["Empty."]}


def test_a_tree_within_the_cap_is_kept_whole() -> None:
    tree = {"name": ["Missing data for required field."], "userSays": {"3": ["Too long."]}}
    error = ValidationFailed.of_tree(tree)
    assert error.errors == tree
    assert error.details == "name: Missing data for required field."
