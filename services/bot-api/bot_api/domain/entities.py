"""Entities as the conversation engine reads them: named sets of values, each said in
any of its synonyms."""

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Entry:
    value: str
    synonyms: tuple[str, ...]


@dataclass(frozen=True)
class Entity:
    name: str
    entries: tuple[Entry, ...]
    translations: Mapping[str, tuple[Entry, ...]] = field(default_factory=dict)
    """A further language's ISO 639-1 code -> the entries said in it (docs/languages.md)."""

    @property
    def entry_count(self) -> int:
        """Its entries in every language: what the entries quota counts, as each is read
        into a recogniser."""
        return len(self.entries) + sum(len(t) for t in self.translations.values())

    def entries_in(self, language: str) -> tuple[Entry, ...]:
        """The entries of `language`, or the default ones where it has none."""
        return self.translations.get(language) or self.entries


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

BUILTIN_EXAMPLES = {
    NUMBER: "2", ORDINAL: "first", PERCENTAGE: "10 percent", DATE: "tomorrow",
    TIME: "8 pm", DATE_TIME: "tomorrow at 8 pm", DURATION: "2 hours",
    AMOUNT_OF_MONEY: "10 dollars", EMAIL: "name@example.com",
    PHONE_NUMBER: "+1 212 555 0100", URL: "example.com", ANY: "something",
}  # fmt: skip
"""What a built-in entity's slot reads as for the semantic stage's encoder (English,
the language of its model), as a user entity's slot reads as its first value."""


def is_builtin(name: str) -> bool:
    return name.startswith(SYS_PREFIX)
