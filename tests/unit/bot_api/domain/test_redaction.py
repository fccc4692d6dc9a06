"""Redaction before a turn is stored: what is personal goes, what only looks like it
(a wrong check digit, an order number, a date) stays."""

import time

import phonenumbers
import pytest
from phonenumbers import PhoneMetadata

from bot_api.domain.redaction import (
    SHORTEST_WITH_COUNTRY_CODE,
    fewest_phone_digits,
    phone_region,
    redact,
    redact_value,
    shortest_national,
)
from bot_api.domain.settings import LANGUAGE_TAGS


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("mail me at jo.doe+x@example.co.uk please", "mail me at [email] please"),
        ("call +44 20 7946 0958 now", "call [phone] now"),
        ("call (415) 555-2671", "call [phone]"),
        ("pay with 4111 1111 1111 1111 ok", "pay with [card] ok"),
        ("pay with 4111-1111-1111-1111", "pay with [card]"),
        ("iban GB82 WEST 1234 5698 7654 32 here", "iban [iban] here"),
        ("iban gb82west12345698765432", "iban [iban]"),
    ],
)
def test_personal_data_is_replaced_by_its_placeholder(said: str, stored: str) -> None:
    assert redact(said, phone_region("english")) == stored


def full_width(text: str) -> str:
    """`text` in full-width forms (U+FF01 to U+FF5E), as a Japanese keyboard writes it."""
    return text.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)}).replace(" ", "\u3000")


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("mail jo.doe (at) example (dot) com", "mail [email]"),
        ("mail jo.doe [at] example.com now", "mail [email] now"),
        ("mail jo dot doe at example dot co dot uk", "mail [email]"),
        ("mail jo.doe @ example . com today", "mail [email] today"),
        ("mail a@[192.168.0.1] or b@[IPv6:2001:db8::1]", "mail [email] or [email]"),
        ("mail " + full_width("jo@example.com"), "mail [email]"),
        ("call 0044 20 7946 0958 now", "call [phone] now"),
        ("call 011 44 20 7946 0958", "call [phone]"),
        ("call 020 7946 0958 (London)", "call [phone] (London)"),
        ("call 06 12 34 56 78", "call [phone]"),
        ("call +1\u202f415\u202f555\u202f2671", "call [phone]"),
        ("pay with 4111.1111.1111.1111", "pay with [card]"),
        ("pay with 4111/1111/1111/1111", "pay with [card]"),
        ("pay with " + full_width("4111 1111 1111 1111") + " ok", "pay with [card] ok"),
        ("pay with 4111\u00a01111\u00a01111\u00a01111", "pay with [card]"),
        ("pay with 4111 1111 1111 1111 12/28", "pay with [card] 12/28"),
        ("iban GB82-WEST-1234-5698-7654-32 here", "iban [iban] here"),
        (full_width("iban DE89 3704 0044 0532 0130 00"), full_width("iban ") + "[iban]"),
    ],
)
def test_the_forms_issue_29_found_leaking_are_replaced(said: str, stored: str) -> None:
    """Before issue 29 each of these was stored as written."""
    assert redact(said, phone_region("english")) == stored


def test_what_is_not_redacted_is_stored_as_written_not_normalised() -> None:
    """Messages are matched in NFKC, but what is kept is kept as the user wrote it."""
    said = full_width("it's (ABC) -") + " \u2460\u2026 mail " + full_width("jo@example.com")
    assert redact(said, "US") == full_width("it's (ABC) -") + " \u2460\u2026 mail [email]"
    assert redact(full_width("(ABC) 12"), "US") == full_width("(ABC) 12")


def test_each_language_reads_the_national_numbers_of_its_own_country() -> None:
    """Before issue 29 a language's tag was taken for a region: Swedish read El
    Salvador's numbers, Catalan Canada's, Arabic Argentina's."""
    assert (phone_region("swedish"), phone_region("catalan"), phone_region("arabic")) == (
        "SE",
        "ES",
        "EG",
    )
    assert {phone_region(language) for language in LANGUAGE_TAGS} <= {
        *phonenumbers.SUPPORTED_REGIONS,
        None,
    }


@pytest.mark.parametrize(
    "said",
    [
        "pay with 4111 1111 1111 1112",  # fails the Luhn check
        "iban GB82 WEST 1234 5698 7654 33",  # fails the IBAN checksum
        "order 123456 on 2026-11-25",
        "I want 2 large pizzas",
        "write to me at home",
    ],
)
def test_what_only_looks_personal_is_kept(said: str) -> None:
    assert redact(said, phone_region("english")) == said


def test_a_national_number_is_read_in_the_story_s_language_region() -> None:
    assert redact("je suis au 06 12 34 56 78", phone_region("french")) == "je suis au [phone]"
    assert phone_region("esperanto") is None
    assert redact("call +33 6 12 34 56 78", phone_region("esperanto")) == "call [phone]"


def test_every_string_inside_a_parameter_value_is_redacted() -> None:
    value = {"contact": ["a@b.io", 4], "card": "4111111111111111", "count": 2}
    assert redact_value(value, "US") == {"contact": ["[email]", 4], "card": "[card]", "count": 2}


def test_a_whole_number_that_is_a_card_or_phone_number_is_redacted() -> None:
    value = {"guests": 4, "card": 378282246310005, "phone": 4155552671, "yes": True}
    assert redact_value(value, "US") == {
        "guests": 4,
        "card": "[card]",
        "phone": "[phone]",
        "yes": True,
    }


def example_numbers() -> list[tuple[str, str]]:
    """(region, number) for libphonenumber's example number of every type of every
    region, shortest types included (Niue's 4 digits)."""
    found = []
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in vars(phonenumbers.PhoneNumberType).values():
            if not isinstance(kind, int):
                continue
            number = phonenumbers.example_number_for_type(region, kind)
            if number is not None:
                found.append((region, number))
    return found


def test_a_message_too_short_for_a_phone_number_is_not_searched_for_one() -> None:
    assert fewest_phone_digits("US") == 6, "a US national number has 10, +43 and 4 digits 6"
    assert fewest_phone_digits(None) == 6
    assert fewest_phone_digits("NU") == 4
    assert redact("call +683 7290", None) == "call [phone]"
    assert redact("2 pizzas at 7pm, 3 cokes", "US") == "2 pizzas at 7pm, 3 cokes"


def test_every_region_s_example_numbers_are_still_redacted() -> None:
    """The digit count that spares short messages the phone matcher misses none of them:
    written as the region writes them and with their country code."""
    national = phonenumbers.PhoneNumberFormat.NATIONAL
    international = phonenumbers.PhoneNumberFormat.INTERNATIONAL
    missed = [
        (region, written, where)
        for region, number in example_numbers()
        for written, where in (
            (phonenumbers.format_number(number, national), region),
            (phonenumbers.format_number(number, international), None),
        )
        if phonenumbers.is_valid_number(number)
        and "[phone]" not in redact(f"reach me on {written} today", where)
        and "[card]" not in redact(f"reach me on {written} today", where)
    ]
    assert missed == []


def test_the_shortest_number_with_a_country_code_is_what_the_metadata_gives() -> None:
    regions = [
        len(str(phonenumbers.country_code_for_region(r)))
        + shortest_national(PhoneMetadata.metadata_for_region(r))
        for r in phonenumbers.SUPPORTED_REGIONS
    ]
    non_geographic = [
        len(str(code)) + shortest_national(PhoneMetadata.metadata_for_nongeo_region(code))
        for code in phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS
    ]
    assert min(regions + non_geographic) == SHORTEST_WITH_COUNTRY_CODE


@pytest.mark.parametrize(
    "said",
    [
        ("1 " * 1024)[:2048],
        ("1." * 1024)[:2048],
        "1" * 2048,
        "jo at " + "b dot " * 340,
        ("a . " * 511) + "@ b",
        ("0044 " * 410)[:2048],
    ],
)
def test_a_message_of_2048_hostile_characters_is_redacted_in_bounded_time(said: str) -> None:
    """A bounded check, not a timing verdict: each took 0.3 s at most (2-core machine,
    bench/redaction.py), and with the patterns first written 1 to 70 s (backtracking
    over optional separators, every window of 1-digit groups tried as a card)."""
    started = time.perf_counter()
    redact(said, "US")
    assert time.perf_counter() - started < 3.0
