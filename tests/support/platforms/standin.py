"""What every platform stand-in does: record what it accepts, keep what it refused
and why, and answer 429 with Retry-After for as many calls as a test asks."""

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Recorded:
    """One request a stand-in received."""

    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class StandIn:
    accepted: list[Recorded] = field(default_factory=list)
    refused: list[tuple[Recorded, list[str]]] = field(default_factory=list)
    busy_calls: int = 0
    retry_after_seconds: int = 1
    url: str = ""
    """Where the stand-in listens, once served."""

    def rate_limit(self, calls: int = 1, retry_after_seconds: int = 1) -> None:
        """Answer the next `calls` calls 429 with `Retry-After`, then as usual."""
        self.busy_calls = calls
        self.retry_after_seconds = retry_after_seconds

    def take_busy(self) -> bool:
        if self.busy_calls == 0:
            return False
        self.busy_calls -= 1
        return True

    def bodies(self) -> list[Any]:
        return [call.body for call in self.accepted]


class Problems:
    """The problems found in a request, each named by where it is."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, where: str, problem: str) -> None:
        self.found.append(f"{where}: {problem}")

    def text(self, where: str, value: Any, limit: int, *, required: bool = True) -> None:
        """A string of 1..limit characters, not all blank (Telegram refuses a blank text,
        the others show an empty bubble), or absent when not required."""
        if value is None:
            if required:
                self.add(where, "required")
        elif not isinstance(value, str):
            self.add(where, "not a string")
        elif not value:
            self.add(where, "empty")
        elif not value.strip():
            self.add(where, "blank")
        elif len(value) > limit:
            self.add(where, f"{len(value)} characters, at most {limit}")

    def items(self, where: str, value: Any, low: int, high: int) -> list[Any]:
        """A list of low..high items; its items, or none when it is no list."""
        if not isinstance(value, list):
            self.add(where, "not a list")
            return []
        if not low <= len(value) <= high:
            self.add(where, f"{len(value)} items, {low} to {high} allowed")
        return value

    def keys(self, where: str, value: Any, allowed: set[str]) -> dict[str, Any]:
        """An object with no key but the allowed ones; it, or {} when it is no object."""
        if not isinstance(value, dict):
            self.add(where, "not an object")
            return {}
        for key in sorted(set(value) - allowed):
            self.add(f"{where}.{key}", "unknown field")
        return value

    def distinct(self, where: str, values: list[Any]) -> None:
        if len(set(map(str, values))) != len(values):
            self.add(where, "repeated values")

    def web_address(self, where: str, value: Any, limit: int) -> None:
        self.text(where, value, limit)
        if isinstance(value, str) and not is_web_address(value):
            self.add(where, "not an http(s) address")


def is_web_address(value: str) -> bool:
    """An absolute http(s) address with a host and no whitespace: what the platforms
    fetch or open (they refuse `https://`, `not a url`, an address with a space)."""
    if any(character.isspace() or ord(character) < 32 for character in value):
        return False
    try:
        address = urlsplit(value)
        port_is_a_number = address.port is None or address.port >= 0
    except ValueError:
        return False
    return address.scheme in ("http", "https") and bool(address.hostname) and port_is_a_number
