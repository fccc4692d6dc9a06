"""What a translation could not carry over, and why: every import answers it."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Unmapped:
    """One element of the source that the story does not get."""

    place: str
    """Where it is in the source, e.g. "intents/Order.json: responses[0].messages[3]"."""
    element: str
    """What it is, e.g. "custom payload", "regexp entity 'zip'"."""
    reason: str
    """Why it is left out, and what a team can do instead."""


@dataclass(frozen=True)
class Translated:
    """A bot of another platform as a Parley story document (version 1)."""

    document: dict[str, Any]
    unmapped: tuple[Unmapped, ...]


class TranslationError(ValueError):
    """The upload is no bot this service reads: a file missing or not parsable (the
    message names it)."""
