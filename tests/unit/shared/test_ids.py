"""Record ids: 24 hexadecimal digits, the form MongoDB ObjectIds are written in."""

import pytest
from bson import ObjectId

from shared.ids import is_object_id, new_object_id, object_id


def test_a_new_id_is_an_id_and_names_its_object_id() -> None:
    created = new_object_id()
    assert is_object_id(created)
    assert object_id(created) == ObjectId(created)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "65f0c0ffee",
        "65f0c0ffee65f0c0ffee65f0c",
        "65f0c0ffee65f0c0ffee65fg",
        "65f0c0ffee65f0c0ffee65f0\n",
    ],
)
def test_anything_else_is_no_id(value: str) -> None:
    assert not is_object_id(value)
    assert object_id(value) is None


def test_ids_are_written_in_lowercase_but_read_in_either_case() -> None:
    written = "65f0c0ffee65f0c0ffee65f0"
    assert not is_object_id(written.upper())
    assert object_id(written.upper()) == ObjectId(written)
