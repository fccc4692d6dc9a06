"""The few words per language the built-in recognisers need beside their libraries:
what a number before them means (a unit, a percentage), how ordinals are written, and
which country a phone number without its code is from. Keyed by ISO 639-1 tag."""

TEXT2NUM_LANGUAGES = frozenset({"fr", "es", "en", "pt", "de", "nl", "da", "it"})
"""The languages text2num 3.1 turns number words into digits in."""

NUMBER_SPELLINGS = {"es": {"veintiún": "veintiuno"}}
"""Forms of number words text2num 3.1 does not know, as it knows them ("veintiún
invitados", the apocope before a masculine noun)."""

DECIMAL_COMMA = frozenset(
    {"de", "es", "fr", "it", "pt", "nl", "da", "sv", "no", "fi", "pl", "cs", "ru", "tr", "ro"}
)
"""Languages writing 2,5 for two and a half (and 1.200 for twelve hundred)."""

ORDINAL_SUFFIX = {
    "en": r"\b(\d+)(?:st|nd|rd|th)\b",
    "de": r"\b(\d+)\.(?=\s+[^\W\d]|\s*$)",
    "es": r"\b(\d+)\.?[ºª°](?!\w)",
    "fr": r"\b(\d+)(?:er|re|e|ème)\b",
    "it": r"\b(\d+)[ºª°](?!\w)",
    "pt": r"\b(\d+)\.?[ºª°](?!\w)",
    "nl": r"\b(\d+)(?:e|ste|de)\b",
    "da": r"\b(\d+)\.(?=\s+[^\W\d])",
}
"""How text2num (and people) write an ordinal in digits."""

PERCENT_WORDS = {
    "en": ("%", "percent", "per cent"),
    "de": ("%", "prozent"),
    "es": ("%", "por ciento", "por 100"),
    "fr": ("%", "pour cent", "pourcent"),
    "it": ("%", "per cento", "percento"),
    "pt": ("%", "por cento"),
    "nl": ("%", "procent"),
    "da": ("%", "procent"),
}

DURATION_UNITS = {
    "en": {
        "second": "S", "seconds": "S", "minute": "MIN", "minutes": "MIN", "hour": "H",
        "hours": "H", "day": "D", "days": "D", "week": "W", "weeks": "W", "month": "MON",
        "months": "MON", "year": "Y", "years": "Y",
    },
    "de": {
        "sekunde": "S", "sekunden": "S", "minute": "MIN", "minuten": "MIN", "stunde": "H",
        "stunden": "H", "tag": "D", "tage": "D", "tagen": "D", "woche": "W", "wochen": "W",
        "monat": "MON", "monate": "MON", "monaten": "MON", "jahr": "Y", "jahre": "Y",
        "jahren": "Y",
    },
    "es": {
        "segundo": "S", "segundos": "S", "minuto": "MIN", "minutos": "MIN", "hora": "H",
        "horas": "H", "día": "D", "días": "D", "dia": "D", "dias": "D", "semana": "W",
        "semanas": "W", "mes": "MON", "meses": "MON", "año": "Y", "años": "Y",
    },
}  # fmt: skip
"""A number followed by one of these is a duration (unit as `_iso_duration` takes it)."""

ONE_UNIT = {
    "en": ("a", "an"), "de": ("ein", "eine", "einen"), "es": ("un", "una"),
    "fr": ("un", "une"), "it": ("un", "una", "uno"), "pt": ("um", "uma"), "nl": ("een",),
    "da": ("en", "et"),
}  # fmt: skip
"""Articles that say one of a unit ("a week"): text2num leaves them as words."""

MINUS = {
    "en": "minus", "de": "minus", "es": "menos", "fr": "moins", "it": "meno", "pt": "menos",
    "nl": "min", "da": "minus",
}  # fmt: skip
"""The word making the number after it negative ("minus 7"): text2num leaves it."""

CURRENCY_WORDS = {
    "$": "USD", "us$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "fr.": "CHF",
    "euro": "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD", "dólar": "USD",
    "dólares": "USD", "pound": "GBP", "pounds": "GBP", "pfund": "GBP", "libra": "GBP",
    "libras": "GBP", "yen": "JPY", "franken": "CHF",
}  # fmt: skip
"""Currency symbols and names -> ISO 4217 (three-letter codes are taken as they are)."""

PHONE_REGIONS = {
    "en": "US", "de": "DE", "es": "ES", "fr": "FR", "it": "IT", "pt": "PT", "nl": "NL",
    "da": "DK", "sv": "SE", "no": "NO", "fi": "FI", "pl": "PL", "cs": "CZ", "ru": "RU",
    "tr": "TR", "ro": "RO", "hu": "HU", "el": "GR", "ga": "IE", "lt": "LT", "et": "EE",
    "zh": "CN", "ja": "JP",
}  # fmt: skip
"""The country a phone number written without its +code is read in, by language."""

CLOCK_WORDS = {
    "de": ((r"(?<=\d) Uhr\b", ":00"),),
    "es": (
        (r"(?<=\d) de la mañana\b", " am"),
        (r"(?<=\d) de la (?:tarde|noche)\b", " pm"),
    ),
}
"""Hours said with clock words dateparser misreads ("um 20 Uhr" would be the 20th, "a las
9 de la mañana" tomorrow), written as it reads them, padded with spaces to as many
characters (positions stay right)."""

DATEPARSER_TAGS = {"no": "nb"}
"""Where dateparser's language code is not the story language's ISO 639-1 tag."""
