"""Ids of records stored under MongoDB ObjectIds: 24 hexadecimal digits.

Ids travel as 24-hex strings everywhere above the repositories, and references
between documents (accountId, storyId) are stored as those strings: nx-27017 never
matches an ObjectId held in a field other than `_id` (docs/mongodb-compatibility.md).
"""

import re

from bson import ObjectId

_WRITTEN_FORM = re.compile(r"[0-9a-f]{24}")


def is_object_id(value: str) -> bool:
    """Whether `value` is an id as the services write it (lowercase hex digits)."""
    return _WRITTEN_FORM.fullmatch(value) is not None


def object_id(value: str) -> ObjectId | None:
    """The ObjectId a path segment names (its hex digits in either case), or None for
    anything malformed."""
    return ObjectId(value) if is_object_id(value.lower()) else None


def new_object_id() -> str:
    return str(ObjectId())
