"""The shape check a JSON body passes before any schema sees it, at its boundaries."""

import json

import pytest

from shared.errors import BadRequest
from shared.json_body import MAX_DEPTH, MAX_MEMBERS, parse


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_nesting_up_to_the_limit_is_taken_and_one_more_is_refused() -> None:
    assert parse(nested(MAX_DEPTH)) is not None
    with pytest.raises(BadRequest, match="nested deeper than 32"):
        parse(nested(MAX_DEPTH + 1))
    with pytest.raises(BadRequest, match="nested deeper than 32"):
        parse(nested(100_000))  # deeper than the JSON decoder recurses


def test_members_up_to_the_limit_are_taken_and_one_more_is_refused() -> None:
    assert len(parse(json.dumps(list(range(MAX_MEMBERS))).encode())) == MAX_MEMBERS
    assert (
        len(parse(json.dumps({"a": {str(i): i for i in range(MAX_MEMBERS)}}).encode())["a"])
        == MAX_MEMBERS
    )
    with pytest.raises(BadRequest, match="more than 2048 members"):
        parse(json.dumps({"a": [{str(i): i for i in range(MAX_MEMBERS + 1)}]}).encode())


@pytest.mark.parametrize(
    "body", [b'"\\ud800"', b'{"\\udfff": 1}', b'["ok", "a\\ud83d"]', b'"\\udf55\\ud83c"']
)
def test_a_lone_surrogate_is_refused(body: bytes) -> None:
    with pytest.raises(BadRequest, match="lone surrogate"):
        parse(body)


def test_a_surrogate_pair_and_an_escaped_backslash_are_text() -> None:
    assert parse(b'"\\ud83c\\udf55"') == "\U0001f355"
    assert parse(b'"\\\\ud800"') == "\\ud800"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"NaN", "NaN is not a JSON number"),
        (b"[-Infinity]", "-Infinity is not a JSON number"),
        (b"1e999", "too large to be stored"),
        (b"9223372036854775808", "beyond the 64-bit range"),
        (b"-9223372036854775809", "beyond the 64-bit range"),
    ],
)
def test_numbers_that_cannot_be_stored_are_refused(body: bytes, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        parse(body)


def test_the_largest_storable_numbers_are_taken() -> None:
    assert parse(b"[9223372036854775807, -9223372036854775808, 1.7e308]") == [
        2**63 - 1,
        -(2**63),
        1.7e308,
    ]
