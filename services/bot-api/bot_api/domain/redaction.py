"""What a recorded turn must not keep (docs/history.md): e-mail addresses, phone numbers,
payment-card numbers and IBANs, replaced by a placeholder before anything is stored.

Numbers are recognised by well-kept libraries: phone numbers by `phonenumbers` (Google's
libphonenumber), card numbers by their Luhn check digit and IBANs by their ISO 7064
checksum (`python-stdnum`), so an order number or a date is left as it was.

The forms people write are matched on the message made plain first (`plain_text`:
full-width digits, no-break spaces, typographic dashes), and what is found is cut out of
the message as written. The kinds are looked for one after the other (e-mail, IBAN, card,
phone), each in what the ones before left: what one found is masked for the next.
"""

import functools
import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

import phonenumbers
from phonenumbers import PhoneMetadata
from stdnum import iban, luhn

from bot_api.domain.redaction_forms import EMAIL as EMAIL
from bot_api.domain.redaction_forms import (
    EMAIL_SPACED,
    NATIONAL_REGIONS,
    OBFUSCATED_EMAIL,
    REGION_OF_LANGUAGE,
    hidden_address,
    may_hide_an_address,
)

IBAN_CANDIDATE = re.compile(r"\b[A-Z]{2}\d{2}(?:[ .-]?[A-Z0-9]){11,30}\b", re.IGNORECASE)
CARD_CANDIDATE = re.compile(r"(?<![\w.])\d(?:(?: ?[./-] ?| )?\d){12,}(?!\w)")
PHONE_CANDIDATE = re.compile(r"(?<![\w+])(?:\+ ?)?\(?\d(?:[ ./()-]{0,4}\d){6,17}(?!\w)")
"""A run of 7 to 18 digits, maybe after `+`, written with the separators phone numbers
have (spaces, dots, dashes, slashes, brackets). Between two digits one run of them at
most: with each separator optional on its own, a long run of digits backtracked
exponentially (2,048 digits took 0.35 s)."""
DATE = re.compile(r"\d{1,4}([./-])\d{1,2}\1\d{1,4}")
YEAR_FIRST = re.compile(r"(?:19|20)\d\d[./-]")
GROUP = re.compile(r"[A-Z0-9]+", re.IGNORECASE)
DIGITS = re.compile(r"\d+")
DIGIT = re.compile(r"\d")
INTERNATIONAL_PREFIX = re.compile(r"\(?(?:00|011)[ ./-]?(?=[1-9])")
"""How Europe and most of the world (00) and North America (011) dial abroad: 0044 is
+44 wherever the story is."""
MASK = "\ue000"
"""What stands for a found span while the next kinds are looked for: a private-use
character, which no pattern matches and which is not a word character."""
DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))

Span = tuple[int, int, str]


def phone_region(language: str) -> str | None:
    """The region whose national phone numbers a story's messages are read with first
    (`REGION_OF_LANGUAGE`)."""
    return REGION_OF_LANGUAGE.get(language)


def plain_text(text: str) -> tuple[str, list[int] | None]:
    """`text` in NFKC (full-width digits and letters as ASCII, every no-break or
    ideographic space a space) with typographic dashes as `-`, and for each of its
    characters the index of the one of `text` it comes from (None: the same indexes,
    as for every ASCII or already plain message)."""
    if text.isascii() or (
        unicodedata.is_normalized("NFKC", text) and text.translate(DASHES) == text
    ):
        return text, None
    pieces: list[str] = []
    origin: list[int] = []
    for index, character in enumerate(text):
        piece = unicodedata.normalize("NFKC", character).translate(DASHES)
        pieces.append(piece)
        origin.extend([index] * len(piece))
    return "".join(pieces), origin


def redact(text: str, region: str | None) -> str:
    """`text` with each e-mail address, IBAN, card and phone number replaced."""
    plain, origin = plain_text(text)
    spans: list[Span] = []
    plain = _found(plain, spans, _emails(plain))
    digits = len(DIGIT.findall(plain))
    if digits:
        plain = _found(plain, spans, _ibans(plain))
        if digits >= 13:
            plain = _found(plain, spans, _cards(plain))
        if digits >= fewest_phone_digits(region):
            _found(plain, spans, _phones(plain, region))
    if not spans:
        return text
    return _replaced(text, sorted(spans), origin)


def _found(plain: str, spans: list[Span], found: Iterator[Span]) -> str:
    """`plain` with the newly `found` spans masked; they join `spans`."""
    new = list(found)
    for start, end, _ in new:
        plain = plain[:start] + MASK * (end - start) + plain[end:]
    spans.extend(new)
    return plain


def _replaced(text: str, spans: list[Span], origin: list[int] | None) -> str:
    pieces, at = [], 0
    for start, end, placeholder in spans:
        first, last = (start, end) if origin is None else (origin[start], origin[end - 1] + 1)
        pieces += [text[at:first], placeholder]
        at = last
    return "".join([*pieces, text[at:]])


def _emails(plain: str) -> Iterator[Span]:
    """Addresses as written (`jo@example.com`, `jo @ example . com`, `a@[192.0.2.1]`)
    and as people hide them from robots (`jo (at) example (dot) com`)."""
    if "@" in plain:
        found = [(m.start(), m.end(), "[email]") for m in EMAIL_SPACED.finditer(plain)]
        yield from found
        plain = _found(plain, [], iter(found))
    if may_hide_an_address(plain):
        for match in OBFUSCATED_EMAIL.finditer(plain):
            if hidden_address(match):
                yield match.start(), match.end(), "[email]"


def _ibans(plain: str) -> Iterator[Span]:
    """The candidate may run on into the words after it ("GB82 WEST ... 32 here"): the
    longest run of its groups that is a valid IBAN is replaced."""
    for match in IBAN_CANDIDATE.finditer(plain):
        groups = list(GROUP.finditer(match.group()))
        for end in range(len(groups), 0, -1):
            if iban.is_valid("".join(g.group() for g in groups[:end]).upper()):
                yield match.start(), match.start() + groups[end - 1].end(), "[iban]"
                break


def _cards(plain: str) -> Iterator[Span]:
    """The longest run of the candidate's digit groups that holds 13 to 19 digits and
    passes the Luhn check (a card followed by its expiry date is still found); runs of
    more than 19 digits are never tried, so a long candidate costs its length."""
    for match in CARD_CANDIDATE.finditer(plain):
        groups = list(DIGITS.finditer(match.group()))
        first = 0
        while first < len(groups):
            run = _card_run(groups, first)
            if run is None:
                first += 1
                continue
            yield match.start() + groups[first].start(), match.start() + run, "[card]"
            first = next((i for i, g in enumerate(groups) if g.start() >= run), len(groups))


def _card_run(groups: list[re.Match[str]], first: int) -> int | None:
    """Where the longest card number starting at group `first` ends, if one does. Cards
    are written in groups of 3 digits or more (4-4-4-4, 4-6-5), the last maybe shorter
    (4-4-4-1): a digit run of shorter groups ("1 2 3 4 ...") is no card, and trying
    every window of it took 0.6 s for a message of 2,048 characters."""
    digits, ends = "", []
    for group in groups[first:]:
        short = len(group.group()) < 3
        if short and not digits:
            return None
        digits += group.group()
        if len(digits) > 19:
            break
        ends.append((digits, group.end()))
        if short:
            break
    for candidate, end in reversed(ends):
        if len(candidate) >= 13 and luhn.is_valid(candidate):
            return end
    return None


def _phones(plain: str, region: str | None) -> Iterator[Span]:
    """Numbers dialled from abroad with `00` or `011` (0044 is +44 wherever the story
    is); then valid numbers of the story's region or with their country code, as
    libphonenumber finds them in text; then each phone-like run left, when written the
    way national numbers are, as a national number of the regions people write from."""
    abroad = [
        (m.start(), m.end(), "[phone]")
        for m in PHONE_CANDIDATE.finditer(plain)
        if (prefix := INTERNATIONAL_PREFIX.match(m.group())) is not None
        and _valid(f"+{m.group()[prefix.end() :]}", None)
    ]
    plain = _found(plain, [], iter(abroad))
    found = [
        (m.start, m.end, "[phone]")
        for m in phonenumbers.PhoneNumberMatcher(plain, region, phonenumbers.Leniency.VALID)
    ]
    plain = _found(plain, [], iter(found))
    yield from abroad + found
    for match in PHONE_CANDIDATE.finditer(plain):
        written = match.group()
        if _written_as_national(written) and any(
            _valid(written, other) for other in _regions_of_length(written) if other != region
        ):
            yield match.start(), match.end(), "[phone]"


def _regions_of_length(written: str) -> list[str]:
    """The regions of `NATIONAL_REGIONS` where a national number may have as many digits
    as `written` (after the region's trunk prefix): parsing it in each of them took 5 ms
    for a message with a 16-digit order number, and most have other lengths."""
    digits = "".join(DIGITS.findall(written))
    return [
        region
        for region, (trunk, lengths) in _national_lengths().items()
        if len(digits.removeprefix(trunk) if trunk else digits) in lengths
    ]


@functools.cache
def _national_lengths() -> dict[str, tuple[str | None, frozenset[int]]]:
    """Each of `NATIONAL_REGIONS`' trunk prefix and national number lengths."""
    found = {}
    for region in NATIONAL_REGIONS:
        metadata = _metadata(region)
        if metadata is not None and metadata.general_desc is not None:
            lengths = frozenset(metadata.general_desc.possible_length)
            found[region] = (metadata.national_prefix, lengths)
    return found


def _written_as_national(written: str) -> bool:
    """A trunk prefix (0 in most of the world, 8 in Russia before a bracketed code), a
    bracketed area code, or digits in three groups or more; not a date nor what starts
    with a year (2026-001-7731, an order number): a run of digits alone is not read in
    every region."""
    if DATE.fullmatch(written) or YEAR_FIRST.match(written):
        return False
    return written[0] in "0(" or written.startswith("8 (") or len(DIGITS.findall(written)) >= 3


def _valid(written: str, region: str | None) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(written, region))
    except phonenumbers.NumberParseException:
        return False


def shortest_national(metadata: PhoneMetadata | None) -> int:
    """The fewest digits of a valid national number (lengths dialable only locally are
    never valid); 1 where the metadata does not say."""
    desc = None if metadata is None else metadata.general_desc
    if desc is None:
        return 1
    return min((n for n in desc.possible_length if n > 0), default=1)


def _metadata(region: str) -> PhoneMetadata | None:
    return PhoneMetadata.metadata_for_region(region)


SHORTEST_WITH_COUNTRY_CODE = 6
"""The fewest digits of a number written with its country code (+43 1234, Austria), as
phonenumbers' metadata of every region gives it: worked out at import it cost 0.3 s of
every start, so the test of this module works it out instead."""


@functools.cache
def fewest_phone_digits(region: str | None) -> int:
    """The fewest digits a phone number found in a message read with `region` can have: a
    national number of the region (10 in the US) or a number with its country code (6),
    from libphonenumber's lengths. A message with fewer digits is not given to the phone
    matcher, which takes 0.05 to 0.15 ms for a message with a few digits ("2 pizzas at
    7pm"), as much as the rest of recording the turn."""
    if region is None:
        return SHORTEST_WITH_COUNTRY_CODE
    return min(shortest_national(_metadata(region)), SHORTEST_WITH_COUNTRY_CODE)


def redact_value(value: Any, region: str | None) -> Any:
    """A parameter's value with every string in it redacted, and every whole number
    whose digits are a card or phone number (a built-in `sys.number` may hold one)."""
    if isinstance(value, str):
        return redact(value, region)
    if isinstance(value, int) and not isinstance(value, bool):
        redacted = redact(str(value), region)
        return value if redacted == str(value) else redacted
    if isinstance(value, Mapping):
        return {key: redact_value(item, region) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(item, region) for item in value]
    return value
