"""The written forms redaction (domain/redaction.py) looks for: e-mail addresses as
written and as hidden from robots, and the region whose phone numbers a story's
language stands for."""

import re

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
"""An address as a built-in `sys.email` takes it (engine/builtin_entities.py)."""

_WORD = r"[\w!#$%&'*+/=?^`{|}~-]{1,64}"
"""A run of what an address's user name may hold (RFC 5322's atom), at most the 64
characters RFC 5321 allows it."""
_START = r"(?<![\w!#$%&'*+/=?^`{|}~.-])"
"""An address starts at the start of a word: a long word is never tried from each of its
characters."""
_LABEL = r"[^\W_][\w-]{0,62}"
_TOP_LEVEL = r"[^\W\d_]{2,63}(?![\w-])"
_IP_LITERAL = r"\[(?:IPv6:[0-9A-F:.]{2,39}|\d{1,3}(?:\.\d{1,3}){3})\]"
_DOT = r"(?:\.| \. )"
_BRACKETED_AT = r" ?[(\[{<] ?(?:at|@) ?[)\]}>] ?"
_SPELLED_DOT = r"(?: ?[(\[{<] ?(?:dot|\.) ?[)\]}>] ?| dot )"
_ANY_DOT = rf"(?:{_SPELLED_DOT}|{_DOT})"
_PARTS = "{0,7}"
"""Dots in a user name, and labels in a domain, at most: every repetition is bounded,
so that a message of 2,048 characters of dotted words costs milliseconds (unbounded,
`b dot b dot ...` took 0.2 s and `a . a . ... @` 60 ms)."""

EMAIL_SPACED = re.compile(
    rf"{_START}{_WORD}(?:{_DOT}{_WORD}){_PARTS} {{0,2}}@ {{0,2}}"
    rf"(?:(?:{_LABEL}{_DOT}){{1,7}}{_TOP_LEVEL}|{_IP_LITERAL})",
    re.IGNORECASE,
)
"""`jo.doe@example.com`, with spaces around `@` and the dots (`jo @ example . com`), or
with an IP literal as its domain (`jo@[192.0.2.1]`, RFC 5321)."""

OBFUSCATED_EMAIL = re.compile(
    rf"{_START}{_WORD}(?:{_ANY_DOT}{_WORD}){_PARTS}"
    rf"(?:(?P<bracketed>{_BRACKETED_AT})|(?: at | ?@ ?))"
    rf"(?P<domain>(?:{_LABEL}{_ANY_DOT}){{1,7}}){_TOP_LEVEL}",
    re.IGNORECASE,
)
"""`jo (at) example (dot) com`, `[at]`, `{at}`, `<at>`, `(@)`, with any dots; or a bare
`at` (or `@`) when the domain spells a dot (`jo at example dot com`, `hidden_address`):
a bare `at` before a plain dot is how sentences run on ("I'm at home.Then")."""

SPELLED_DOT = re.compile(_SPELLED_DOT, re.IGNORECASE)


def hidden_address(match: re.Match[str]) -> bool:
    """Whether a match of `OBFUSCATED_EMAIL` hides an address: its `at` is bracketed or
    its domain spells a dot."""
    return bool(match["bracketed"]) or SPELLED_DOT.search(match["domain"]) is not None


HIDING_BRACKET = re.compile(r"[(\[{<] ?(?:at|dot|@|\.) ?[)\]}>]")


def may_hide_an_address(plain: str) -> bool:
    """Whether `plain` holds what every hidden address has, a spelled dot or a bracketed
    `at` or dot: `OBFUSCATED_EMAIL` costs 10 to 40 µs on a short message (1.5 ms on
    2,048 characters), ten times the rest of redaction, so only such messages are
    searched (4 of HWU64's 1,076 test messages)."""
    lowered = plain.lower()
    return " dot " in lowered or HIDING_BRACKET.search(lowered) is not None


REGION_OF_LANGUAGE = {
    "arabic": "EG", "armenian": "AM", "basque": "ES", "catalan": "ES", "chinese": "CN",
    "czech": "CZ", "danish": "DK", "dutch": "NL", "english": "US", "estonian": "EE",
    "finnish": "FI", "french": "FR", "german": "DE", "greek": "GR", "hindi": "IN",
    "hungarian": "HU", "indonesian": "ID", "irish": "IE", "italian": "IT", "japanese": "JP",
    "lithuanian": "LT", "nepali": "NP", "norwegian": "NO", "persian": "IR", "polish": "PL",
    "portuguese": "PT", "romanian": "RO", "russian": "RU", "serbian": "RS",
    "sesotho": "ZA", "spanish": "ES", "swedish": "SE", "tamil": "IN", "turkish": "TR",
}  # fmt: skip
"""The region whose national phone numbers a story's messages are read with first: the
country most speakers of its language live in (CLDR's likely region; Portuguese: PT, as
before). Esperanto and Yiddish have none: their stories find numbers written with a
country code, and national ones of `NATIONAL_REGIONS`."""

NATIONAL_REGIONS = tuple(
    dict.fromkeys([*REGION_OF_LANGUAGE.values(), "GB", "AU", "CA", "NZ", "MX", "BR", "AR"])
)
"""Where a number is tried as a national one when the story's region does not read it
(and it is written as national numbers are): the regions of the story languages, and
the most populous others that share one (English, Spanish, Portuguese)."""
