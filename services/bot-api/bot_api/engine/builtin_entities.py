"""Built-in entities (`sys.number`, `sys.date`, ...): values every story may ask for
without listing them, recognised in the story's language and normalised to JSON.

Each family runs only when the story uses one of its entities, so a story without
built-in entities pays nothing. The recognisers are libraries chosen by measurement on
tests/data/sys_entities.jsonl (docs/entities.md "Built-in entities"): dateparser for
dates and times, text2num for numbers said in words, price-parser for amounts,
phonenumbers for phone numbers. What they leave (the number that precedes a unit, a
currency's code) is looked up in the small per-language tables of `builtin_words`.
"""

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cache
from typing import Any

import phonenumbers
from dateparser.date import DateData, DateDataParser
from dateparser.search import search_dates
from price_parser import Price
from text_to_num import alpha2digit

from bot_api.domain.entities import (
    AMOUNT_OF_MONEY,
    ANY,
    DATE,
    DATE_TIME,
    DURATION,
    EMAIL,
    NUMBER,
    ORDINAL,
    PERCENTAGE,
    PHONE_NUMBER,
    TIME,
    URL,
)
from bot_api.domain.redaction import EMAIL as EMAIL_PATTERN
from bot_api.domain.settings import LANGUAGE_TAGS
from bot_api.engine.analysis import EAST_ASIAN_LETTERS, Analyser, analyser
from bot_api.engine.builtin_words import (
    CLOCK_WORDS,
    CURRENCY_WORDS,
    DATEPARSER_TAGS,
    DECIMAL_COMMA,
    DURATION_UNITS,
    MINUS,
    NUMBER_SPELLINGS,
    ONE_UNIT,
    ORDINAL_SUFFIX,
    PERCENT_WORDS,
    PHONE_REGIONS,
    TEXT2NUM_LANGUAGES,
)
from bot_api.engine.entities import Mention

MAX_WORDS = 64
"""Words of a message matched, and read by the built-in recognisers (runs without
spaces, at most `MAX_CHARACTERS` characters): a longer message is read by its beginning,
so the work of one turn is bounded whatever is sent (docs/reliability.md)."""
MAX_CHARACTERS = 512
MAX_DATE_WORDS = 16
MAX_DATE_NUMBERS = 6
"""Dates are looked for in the first 16 words, up to the sixth with a digit: dateparser's
search grows faster than the dates in a text (measured, loaded 2-core machine: 16
"2026-11-11" take 105 ms, 32 take 361 ms); with this window the worst message measured
takes 28 ms with every built-in entity on (2048 characters of "2026-11-11 "), a booking
message 1-2 ms."""
_SPACED = re.compile(r"\S+")

MAX_NUMBER = 1e15
"""Numbers at or beyond it are not read: JSON clients in JavaScript hold integers exactly
only up to 2**53 (about 9e15), and 600 digits would be infinity, which JSON has not."""
WORD_NUMBERS_FROM = 2
"""A lone "one" said in words is no number: in German and Spanish it is also the article
("ein Tisch für zwölf" would give 1 guest); "one hundred" still is."""
_ISO_CODE = re.compile(r"[A-Z]{3}")
_CURRENCY_NAMES = "|".join(
    re.escape(word) if not word[0].isalpha() else rf"(?<!\w)(?i:{re.escape(word)})(?!\w)"
    for word in sorted(CURRENCY_WORDS, key=len, reverse=True)
)
_CURRENCY = rf"{_CURRENCY_NAMES}|(?<![A-Za-z])[A-Z]{{3}}(?![A-Za-z])"
_AMOUNT = r"(?<![\d.,])\d(?:[\d.,]*\d)?"
_MONEY = re.compile(
    rf"(?P<amount_before>{_AMOUNT})\s?(?P<currency_after>{_CURRENCY})"
    rf"|(?P<currency_before>{_CURRENCY})\s?(?P<amount_after>{_AMOUNT})"
)
"""An amount with its currency just before or after it."""
_DATES = frozenset({DATE, TIME, DATE_TIME})
_CARDINALS = frozenset({NUMBER, PERCENTAGE, DURATION})
_NUMBERS = _CARDINALS | {ORDINAL}
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
_TRAILING_PUNCTUATION = ".,;:!?)"
_BESIDE_EAST_ASIAN = re.compile(
    rf"(?<=[{EAST_ASIAN_LETTERS}])(?=\d)|(?<=\d)(?=[{EAST_ASIAN_LETTERS}])"
)
"""Where digits touch Chinese or Japanese letters ("2个人", "3時に"): with a space there a
number is read as in a spaced language."""
_ABBREVIATION = re.compile(r"[^\W\d]{1,2}")
"""A date said as one word of one or two letters is taken for no date: dateparser reads
weekday abbreviations there ("we are six" -> Wednesday)."""


@dataclass(frozen=True)
class _Found:
    """A value and the characters it was said in (of the text the recogniser read)."""

    entity: str
    value: Any
    start: int
    end: int
    said_in: str = ""
    """The text `start` and `end` count in, when not the message as sent (numbers said
    in words are read after text2num turned them into digits)."""


class BuiltinRecognizer:
    """Recognises the built-in entities of `used` in messages in `language`."""

    def __init__(self, used: Iterable[str], language: str) -> None:
        self.used = frozenset(used)
        self._analyser = analyser(language)
        self._tag = LANGUAGE_TAGS.get(language, "en")
        self._comma = self._tag in DECIMAL_COMMA
        self._date_tag = (
            _date_language(DATEPARSER_TAGS.get(self._tag, self._tag))
            if self.used & _DATES
            else None
        )
        """dateparser's language, loaded only for a story that uses dates (6 to 13 ms and
        its data per language)."""

    def find(self, text: str, now: datetime) -> list[Mention]:
        """The built-in values said in `text`, positioned on its words (as the language's
        analyser reads them); dates and times are resolved against `now` (in the
        conversation's timezone)."""
        text = _beginning(text, MAX_WORDS)
        found: list[_Found] = []
        if self.used & _NUMBERS:
            found.extend(self._numbers(text))
        if self.used & _DATES and self._date_tag is not None:
            window = _beginning(text, MAX_DATE_WORDS, MAX_DATE_NUMBERS)
            found.extend(self._dates(window, now, self._date_tag))
        if AMOUNT_OF_MONEY in self.used:
            found.extend(self._money(text))
        if EMAIL in self.used:
            emails = EMAIL_PATTERN.finditer(text)
            found.extend(_Found(EMAIL, m.group(), m.start(), m.end()) for m in emails)
        if URL in self.used:
            found.extend(_urls(text))
        if PHONE_NUMBER in self.used:
            found.extend(self._phones(text))
        mentions = [_mention(text, f, self._analyser) for f in found if f.entity in self.used]
        return _outside_others(mentions)

    def _numbers(self, text: str) -> Iterator[_Found]:
        """Numbers, ordinals, percentages and durations: said in words they are turned
        into digits first (text2num), then read as digits."""
        if self.used & _CARDINALS:
            yield from self._cardinals(self._in_digits(text, WORD_NUMBERS_FROM))
        ordinal = ORDINAL_SUFFIX.get(self._tag)
        if ORDINAL in self.used and ordinal is not None:
            digits = self._in_digits(text, 0)  # "first" is an ordinal whatever the article
            for match in re.finditer(ordinal, digits, re.IGNORECASE):
                yield _Found(ORDINAL, int(match.group(1)), match.start(), match.end(), digits)

    def _in_digits(self, text: str, threshold: int) -> str:
        if self._tag not in TEXT2NUM_LANGUAGES:
            return _BESIDE_EAST_ASIAN.sub(" ", text)
        for said, known in NUMBER_SPELLINGS.get(self._tag, {}).items():
            text = re.sub(rf"\b{said}\b", known, text, flags=re.IGNORECASE)
        digits: str = alpha2digit(text, self._tag, threshold=threshold)
        return digits

    def _cardinals(self, digits: str) -> Iterator[_Found]:
        number = r"-?\d{1,3}(?:\.\d{3})+(?:,\d+)?|-?\d+(?:,\d+)?"
        if not self._comma:
            number = r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?"
        percent = "|".join(PERCENT_WORDS.get(self._tag, ("%",)))
        units = DURATION_UNITS.get(self._tag, {})
        minus = MINUS.get(self._tag)
        for match in re.finditer(rf"(?<![\w.,])({number})(?![\w]|[.,]\d)", digits):
            value = self._number(match.group(1))
            if value is None:
                continue
            before = digits[: match.start()]
            if minus and re.search(rf"\b{minus}\s+$", before, re.IGNORECASE):
                value = -value
            rest = digits[match.end() :]
            yield _Found(NUMBER, value, match.start(), match.end(), digits)
            said = re.match(rf"\s*(?:{percent})", rest, re.IGNORECASE)
            if said:
                end = match.end() + said.end()
                yield _Found(PERCENTAGE, value, match.start(), end, digits)
            unit = re.match(r"\s*(\w+)", rest)
            if unit and unit.group(1).lower() in units and isinstance(value, int):
                duration = _iso_duration(value, units[unit.group(1).lower()])
                end = match.end() + unit.end()
                yield _Found(DURATION, duration, match.start(), end, digits)
        articles = "|".join(ONE_UNIT.get(self._tag, ()))
        said_one = re.finditer(rf"\b(?:{articles})\s+(\w+)", digits, re.IGNORECASE)
        for match in said_one if articles else ():
            unit_said = match.group(1).lower()
            if unit_said in units:
                duration = _iso_duration(1, units[unit_said])
                yield _Found(DURATION, duration, match.start(), match.end(), digits)

    def _number(self, said: str) -> int | float | None:
        """The number written, None beyond `MAX_NUMBER`."""
        group, decimal = (".", ",") if self._comma else (",", ".")
        plain = said.replace(group, "").replace(decimal, ".")
        return _json_number(float(plain))

    def _dates(self, text: str, now: datetime, tag: str) -> Iterator[_Found]:
        """Dates, times and date-times (a day, week, month or year said without a time
        is a range: {"start", "end"}), by dateparser, in the conversation's timezone."""
        for said, read in CLOCK_WORDS.get(self._tag, ()):
            text = re.sub(said, _padded(read), text, flags=re.IGNORECASE)
        settings = _date_settings(now)
        hits = search_dates(text, languages=[tag], settings=settings) or []
        parser = DateDataParser(languages=[tag], settings=settings)
        position = 0
        for hit, found in hits:
            said = self._without_leading_number(hit, found, tag, settings)
            start = text.find(said, position)
            if start < 0 or _ABBREVIATION.fullmatch(said):
                continue
            position = end = start + len(said)
            data = parser.get_date_data(said)
            period = _period_said(data, found, now)
            moment = (data.date_obj or found).replace(tzinfo=now.tzinfo)
            if period == "time":
                yield _Found(DATE_TIME, moment.isoformat(), start, end)
                yield _Found(TIME, moment.time().isoformat(), start, end)
                yield _Found(DATE, moment.date().isoformat(), start, end)
            else:
                first, last = _period(moment.date(), period)
                if period == "day":
                    yield _Found(DATE, first.isoformat(), start, end)
                yield _Found(DATE_TIME, _range(first, last, now), start, end)

    def _without_leading_number(
        self, said: str, found: datetime, tag: str, settings: dict[str, Any]
    ) -> str:
        """The date without the number dateparser's search takes in before it ("4
        tomorrow", "one tomorrow": the guests', not part of the date): dropped when the
        rest alone is the same date ("24 de diciembre" keeps its 24)."""
        first, _, rest = said.partition(" ")
        said_in_words = self._tag in TEXT2NUM_LANGUAGES and first.isalpha()
        if not rest or not (first.isdigit() or said_in_words):
            return said
        if said_in_words and alpha2digit(first, self._tag, threshold=0) == first:
            return said
        alone = search_dates(rest, languages=[tag], settings=settings) or []
        return rest if [(rest, found)] == alone else said

    def _money(self, text: str) -> Iterator[_Found]:
        """Each amount said beside a currency (a symbol, an ISO code, a name: "$20",
        "20 €", "EUR 250", "100 dollars"); price-parser reads the amount."""
        separator = "," if self._comma else "."
        for match in _MONEY.finditer(text):
            said = match.group("amount_before") or match.group("amount_after")
            currency = _currency(match.group("currency_before") or match.group("currency_after"))
            price = Price.fromstring(said, decimal_separator=separator).amount
            amount = None if price is None else _json_number(float(price))
            if amount is None or currency is None:
                continue
            value = {"amount": amount, "currency": currency}
            yield _Found(AMOUNT_OF_MONEY, value, match.start(), match.end())

    def _phones(self, text: str) -> Iterator[_Found]:
        region = PHONE_REGIONS.get(self._tag)
        for match in phonenumbers.PhoneNumberMatcher(text, region):
            number = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            yield _Found(PHONE_NUMBER, number, match.start, match.end)


@cache
def _date_language(tag: str) -> str | None:
    """`tag` if dateparser reads the language (None: no dates in it), its data loaded:
    dateparser loads it on first use, once a process, 100 to 500 ms measured for the
    first language (bench/sys_entities.py); done here, as the story is compiled (in the
    story cache's worker), rather than in its first message's turn."""
    try:
        search_dates("tomorrow", languages=[tag])
    except ValueError:  # "Unknown language(s)"
        return None
    return tag


def _padded(read: str) -> Callable[[re.Match[str]], str]:
    """Replaces what it matches by `read` and as many spaces as keep the length."""
    return lambda match: read.ljust(len(match.group()))


def _beginning(text: str, words: int, numbered: int | None = None) -> str:
    """The first `words` words of `text` (and no more than `numbered` with a digit), at
    most `MAX_CHARACTERS` characters."""
    numbers = 0
    for count, word in enumerate(_SPACED.finditer(text), 1):
        numbers += any(c.isdigit() for c in word.group())
        if count == words or numbers == numbered:
            return text[: min(word.end(), MAX_CHARACTERS)]
    return text[:MAX_CHARACTERS]


def _json_number(value: float) -> int | float | None:
    """Whole numbers as integers; None beyond `MAX_NUMBER` (or not finite)."""
    if not abs(value) < MAX_NUMBER:
        return None
    return int(value) if value.is_integer() else value


def free_text(text: str, words: int) -> Mention:
    """`sys.any`: the whole message, the answer to the parameter being asked for."""
    return Mention(ANY, text.strip(), 0, words, text.strip())


def _urls(text: str) -> Iterator[_Found]:
    for match in _URL.finditer(text):
        said = match.group().rstrip(_TRAILING_PUNCTUATION)
        yield _Found(URL, said, match.start(), match.start() + len(said))


def _date_settings(now: datetime) -> dict[str, Any]:
    return {
        "RELATIVE_BASE": now.replace(tzinfo=None),
        "PREFER_DATES_FROM": "future",
        "RETURN_TIME_AS_PERIOD": True,
    }


def _period_said(data: DateData, found: datetime, now: datetime) -> str:
    """ "time" when a time of day was said, else the day, week, month or year meant:
    dateparser's own period when it parses the words alone (more carefully than its
    search: "the day after tomorrow"), else a time of day other than midnight and
    now's is taken as said."""
    if data.date_obj is not None and data.period in ("time", "day", "week", "month", "year"):
        return str(data.period)
    return "day" if found.time() in (time(0), now.replace(tzinfo=None).time()) else "time"


def _period(day: date, period: str) -> tuple[date, date]:
    """The first day of the period `day` stands for, and the first day after it."""
    if period == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=7)
    if period == "month":
        first = day.replace(day=1)
        return first, (first + timedelta(days=32)).replace(day=1)
    if period == "year":
        return day.replace(month=1, day=1), day.replace(year=day.year + 1, month=1, day=1)
    return day, day + timedelta(days=1)


def _range(first: date, last: date, now: datetime) -> dict[str, str]:
    def midnight(day: date) -> str:
        return datetime(day.year, day.month, day.day, tzinfo=now.tzinfo).isoformat()

    return {"start": midnight(first), "end": midnight(last)}


def _iso_duration(amount: int, unit: str) -> str:
    """ISO 8601 for `amount` units ("S", "MIN", "H", "D", "W", "MON", "Y"); a week is
    seven days, as Dialogflow and Duckling count it."""
    if unit == "W":
        return f"P{amount * 7}D"
    if unit in ("S", "MIN", "H"):
        return f"PT{amount}{unit[0]}"
    return f"P{amount}{unit[0]}"


def _currency(said: str) -> str | None:
    return CURRENCY_WORDS.get(said.lower(), said if _ISO_CODE.fullmatch(said) else None)


def _outside_others(mentions: list[Mention]) -> list[Mention]:
    """The mentions less the numbers and ordinals said within another value: the 20 of
    "$20", the 2 of "in 2 hours", the 24 of "am 24. Dezember" (when the story uses both
    entities; a story asking only for numbers still reads them there)."""

    def within_other(m: Mention) -> bool:
        return m.entity in (NUMBER, ORDINAL) and any(
            o.entity not in (NUMBER, ORDINAL) and o.start <= m.start and m.end <= o.end
            for o in mentions
        )

    return [m for m in mentions if not within_other(m)]


def _mention(text: str, found: _Found, analysis: Analyser) -> Mention:
    text = found.said_in or text
    start = len(analysis.words(text[: found.start]))
    end = max(start + 1, len(analysis.words(text[: found.end])))
    return Mention(found.entity, found.value, start, end, text[found.start : found.end])
