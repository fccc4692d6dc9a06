"""The engine's and the domain's own errors answer over HTTP exactly as the shared error
classes they replace did: same status, errorType, errorDetails and errors tree."""

import pytest

from bot_api.domain.errors import Clash, DomainError, Invalid, Unknown
from shared.errors import ApiError, Conflict, NotFound, ValidationFailed, from_domain


@pytest.mark.parametrize(
    ("error", "before"),
    [
        (
            Invalid.at(("responses", 2), "at most one quickReply block"),
            ValidationFailed.at(("responses", 2), "at most one quickReply block"),
        ),
        (
            Invalid.at(("parameters", 0, "alias"), "'size' is used twice"),
            ValidationFailed.at(("parameters", 0, "alias"), "'size' is used twice"),
        ),
        (
            Invalid.at((3, "id"), "x is listed twice"),
            ValidationFailed.at((3, "id"), "x is listed twice"),
        ),
        (Unknown("no interaction abc in this story"), NotFound("no interaction abc in this story")),
        (Clash("trigger 'hi' is already used"), Conflict("trigger 'hi' is already used")),
    ],
    ids=["invalid", "invalid-nested", "invalid-index-first", "unknown", "clash"],
)
def test_each_kind_answers_as_the_error_it_replaces(error: DomainError, before: ApiError) -> None:
    answer = from_domain(error)
    assert answer is not None
    assert type(answer) is type(before)
    assert (answer.status, answer.error_type, answer.details, answer.errors) == (
        before.status,
        before.error_type,
        before.details,
        before.errors,
    )


def test_an_invalid_error_reads_as_its_errordetails() -> None:
    error = Invalid.at(("responses", 1, "text"), "is empty")
    assert str(error) == "responses[1].text: is empty"
    assert (error.path, error.message) == (("responses", 1, "text"), "is empty")
