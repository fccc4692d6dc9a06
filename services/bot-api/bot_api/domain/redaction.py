"""What a recorded turn must not keep (docs/history.md): e-mail addresses, phone numbers,
payment-card numbers and IBANs, replaced by a placeholder before anything is stored.

Numbers are recognised by well-kept libraries: phone numbers by `phonenumbers` (Google's
libphonenumber), card numbers by their Luhn check digit and IBANs by their ISO 7064
checksum (`python-stdnum`), so an order number or a date is left as it was.
"""

import functools
import re
from collections.abc import Mapping
from typing import Any

import phonenumbers
from phonenumbers import PhoneMetadata
from stdnum import iban, luhn

from bot_api.domain.settings import LANGUAGE_TAGS

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
IBAN_CANDIDATE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b", re.IGNORECASE)
CARD_CANDIDATE = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
DIGIT = re.compile(r"\d")
REGION_OF_LANGUAGE = {"english": "US", "chinese": "CN", "japanese": "JP"}
"""The region whose national phone numbers a story's messages are read with; else the
language's own tag when it is a region (`fr`, `de`...), else only numbers written with
their country code (+44...)."""


def phone_region(language: str) -> str | None:
    if language in REGION_OF_LANGUAGE:
        return REGION_OF_LANGUAGE[language]
    tag = LANGUAGE_TAGS.get(language, "").upper()
    return tag if tag in phonenumbers.SUPPORTED_REGIONS else None


def redact(text: str, region: str | None) -> str:
    """`text` with each e-mail address, IBAN, card and phone number replaced."""
    if "@" in text:
        text = EMAIL.sub("[email]", text)
    digits = len(DIGIT.findall(text))
    if not digits:
        return text
    text = IBAN_CANDIDATE.sub(_iban, text)
    text = CARD_CANDIDATE.sub(_card, text)
    if digits < fewest_phone_digits(region):
        return text
    return _phones(text, region)


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


def _iban(match: re.Match[str]) -> str:
    """The candidate may run on into the words after it ("GB82 WEST ... 32 here"): the
    longest run of its groups that is a valid IBAN is replaced."""
    groups = match.group().split(" ")
    for end in range(len(groups), 0, -1):
        if iban.is_valid("".join(groups[:end]).upper()):
            return " ".join(["[iban]", *groups[end:]])
    return match.group()


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    return "[card]" if 13 <= len(digits) <= 19 and luhn.is_valid(digits) else match.group()


def _phones(text: str, region: str | None) -> str:
    found = [
        (m.start, m.end)
        for m in phonenumbers.PhoneNumberMatcher(text, region, phonenumbers.Leniency.VALID)
    ]
    for start, end in reversed(found):
        text = f"{text[:start]}[phone]{text[end:]}"
    return text
