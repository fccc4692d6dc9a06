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


SYS_PREFIX = "sys."
"""Entity names beginning with it are the built-in entities' (reserved)."""
NUMBER = "sys.number"
ORDINAL = "sys.ordinal"
PERCENTAGE = "sys.percentage"
DATE = "sys.date"
TIME = "sys.time"
DATE_TIME = "sys.date-time"
DURATION = "sys.duration"
AMOUNT_OF_MONEY = "sys.amount-of-money"
EMAIL = "sys.email"
PHONE_NUMBER = "sys.phone-number"
URL = "sys.url"
ANY = "sys.any"
BUILTIN_ENTITIES = frozenset(
    {NUMBER, ORDINAL, PERCENTAGE, DATE, TIME, DATE_TIME, DURATION, AMOUNT_OF_MONEY}
    | {EMAIL, PHONE_NUMBER, URL, ANY}
)


def is_builtin(name: str) -> bool:
    return name.startswith(SYS_PREFIX)
