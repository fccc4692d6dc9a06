"""What a translation could not carry over, and why: every import answers it."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

Row = TypeVar("Row")


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


@dataclass(frozen=True)
class ReasonGroup(Generic[Row]):
    """Rows of a report that share their reason: a report reads one reason at a time,
    the most frequent first, not hundreds of rows in the source's order."""

    reason: str
    rows: tuple[Row, ...]

    @property
    def count(self) -> int:
        return len(self.rows)


def by_reason(rows: Iterable[Row], reason_of: Callable[[Row], str]) -> list[ReasonGroup[Row]]:
    """The rows grouped by their reason, the largest group first (on a tie, the one whose
    reason came first), each group's rows in their order."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(reason_of(row), []).append(row)
    ordered = sorted(groups.items(), key=lambda group: -len(group[1]))
    return [ReasonGroup(reason, tuple(grouped)) for reason, grouped in ordered]
