"""Entities as the conversation engine reads them: named sets of values, each said in
any of its synonyms."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    value: str
    synonyms: tuple[str, ...]


@dataclass(frozen=True)
class Entity:
    name: str
    entries: tuple[Entry, ...]
