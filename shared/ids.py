"""Ids of records stored under MongoDB ObjectIds: 24 hexadecimal digits.

Ids travel as 24-hex strings everywhere above the repositories, and references
between documents (accountId, storyId) are stored as those strings: nx-27017 never
matches an ObjectId held in a field other than `_id` (docs/mongodb-compatibility.md).
"""

import re
import secrets

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


_CHANNEL_ID = re.compile(r"[0-9a-f]{32}|[0-9a-f]{24}")


def new_channel_id() -> str:
    """128 random bits as 32 hex digits: a channel's id is in its platform's webhook URL
    and names its users' sessions, so no one may guess it. A channel made before issue
    29 keeps its ObjectId (24 hex digits: a timestamp and a counter, guessable)."""
    return secrets.token_hex(16)


def is_channel_id(value: str) -> bool:
    """Whether `value` could name a channel (either form, its hex digits in either case,
    as the repository reads them)."""
    return _CHANNEL_ID.fullmatch(value.lower()) is not None


def is_channel_session(session_id: str) -> bool:
    """Whether `session_id` is of the form of a channel's sessions,
    `<channel id>:<conversation>:<user>` (shared/events.py): a namespace only channels'
    turns may use, never /query's callers (who could otherwise read and speak in a
    channel user's conversation)."""
    channel_id, colon, rest = session_id.partition(":")
    return bool(colon) and ":" in rest and is_channel_id(channel_id)
