from bson import ObjectId
from bson.errors import InvalidId


def object_id(value: str) -> ObjectId | None:
    """The ObjectId a path segment names, or None for anything malformed.

    Ids travel as 24-hex strings everywhere above the repositories, and references
    between documents (accountId, storyId) are stored as those strings: nx-27017 never
    matches an ObjectId held in a field other than `_id` (docs/mongodb-compatibility.md).
    """
    try:
        return ObjectId(value)
    except (InvalidId, TypeError):
        return None


def new_object_id() -> str:
    return str(ObjectId())
