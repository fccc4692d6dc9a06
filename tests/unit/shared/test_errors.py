"""How a marshmallow error tree reads as one line of `errorDetails`, and how an error that
declares its kind (the engine's and the domain's) is answered."""

import pytest

from shared.errors import (
    MAX_FIELD_ERRORS,
    Conflict,
    NotFound,
    ValidationFailed,
    first_error_path,
    from_domain,
)


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


class Refused(Exception):
    """A stand-in for an error of code that knows nothing of HTTP: it declares its kind."""

    def __init__(self, kind: str, text: str, **fields: object) -> None:
        super().__init__(text)
        self.kind = kind
        for name, value in fields.items():
            setattr(self, name, value)


def test_an_invalid_error_is_a_400_naming_its_field_like_a_schema_error_would() -> None:
    refused = Refused(
        "invalid", "ignored", path=("responses", 2, "text"), message="at most 640 characters"
    )
    answer = from_domain(refused)
    assert isinstance(answer, ValidationFailed)
    assert (answer.status, answer.error_type) == (400, "validation_error")
    assert answer.details == "responses[2].text: at most 640 characters"
    assert answer.errors == {"responses": {"2": {"text": ["at most 640 characters"]}}}


def test_an_invalid_error_without_a_path_still_answers_400_with_its_text() -> None:
    answer = from_domain(Refused("invalid", "order: must list every root"))
    assert isinstance(answer, ValidationFailed)
    assert (answer.status, answer.details, answer.errors) == (
        400,
        "order: must list every root",
        None,
    )


@pytest.mark.parametrize(
    ("kind", "status", "error_type", "error_class"),
    [("unknown", 404, "not_found", NotFound), ("clash", 409, "conflict", Conflict)],
)
def test_unknown_and_clash_errors_answer_their_status_with_their_text(
    kind: str, status: int, error_type: str, error_class: type[Exception]
) -> None:
    answer = from_domain(Refused(kind, "no interaction abc in this story"))
    assert isinstance(answer, error_class)
    assert (answer.status, answer.error_type) == (status, error_type)
    assert (answer.details, answer.errors) == ("no interaction abc in this story", None)


@pytest.mark.parametrize(
    "error",
    [RuntimeError("boom"), Refused("something else", "boom"), KeyError("kind")],
    ids=["plain", "another-kind", "key-error"],
)
def test_an_error_that_declares_no_known_kind_is_not_answered(error: Exception) -> None:
    assert from_domain(error) is None
