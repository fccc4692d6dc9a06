"""The errors the engine and the domain raise: their own, with no HTTP in them.

The engine and the domain are plain Python (no web framework, no database, nothing of
`shared`), so they cannot raise shared's `ApiError`s. Each error here says what went wrong
by its `kind` instead; the error middleware answers it over HTTP through
`shared.errors.from_domain`: "invalid" as a 400 `validation_error` naming `path`,
"unknown" as a 404 and "clash" as a 409.
"""

from typing import ClassVar

Path = tuple[str | int, ...]
"""A field's path in a body, e.g. ("responses", 2, "text")."""


class DomainError(Exception):
    """A write or a turn the rules refuse."""

    kind: ClassVar[str]


class Invalid(DomainError):
    """A value breaks a rule: `message` about the field at `path`."""

    kind = "invalid"

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{_dotted(path)}: {message}")
        self.path = path
        self.message = message

    @classmethod
    def at(cls, path: Path, message: str) -> "Invalid":
        """The error about one field, e.g. Invalid.at(("responses", 2), "is empty")."""
        return cls(path, message)


class Unknown(DomainError):
    """A record or an interaction the story does not have."""

    kind = "unknown"


class Clash(DomainError):
    """The change conflicts with what is stored, e.g. a trigger another interaction uses."""

    kind = "clash"


def _dotted(path: Path) -> str:
    """("responses", 2, "text") -> "responses[2].text", as `errorDetails` names it."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
