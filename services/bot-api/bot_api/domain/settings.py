"""A story's settings and their defaults."""

from dataclasses import dataclass

import Stemmer

STEMMED_LANGUAGES = frozenset(Stemmer.algorithms()) - {"porter", "dutch_porter"}
"""The languages the Snowball stemmer offers (its Porter ones are older english and
dutch)."""
SEGMENTED_LANGUAGES = frozenset({"chinese", "japanese"})
"""Languages written without spaces between words: a library finds them
(engine/analysis.py)."""
LANGUAGES = tuple(sorted(STEMMED_LANGUAGES | SEGMENTED_LANGUAGES))
"""The languages a story may be in."""

LANGUAGE_TAGS = {
    "arabic": "ar", "armenian": "hy", "basque": "eu", "catalan": "ca", "chinese": "zh",
    "czech": "cs", "danish": "da", "dutch": "nl", "english": "en", "esperanto": "eo",
    "estonian": "et", "finnish": "fi", "french": "fr", "german": "de", "greek": "el", "hindi": "hi",
    "hungarian": "hu", "indonesian": "id", "irish": "ga", "italian": "it", "japanese": "ja",
    "lithuanian": "lt", "nepali": "ne", "norwegian": "no", "persian": "fa", "polish": "pl",
    "portuguese": "pt", "romanian": "ro", "russian": "ru", "serbian": "sr",
    "sesotho": "st", "spanish": "es", "swedish": "sv", "tamil": "ta", "turkish": "tr",
    "yiddish": "yi",
}  # fmt: skip
"""Each language's BCP 47 tag, for HTML `lang` (the console's spellcheck and screen
readers); a story's `language` may be given as it (`language_named`)."""
_LANGUAGE_OF_TAG = {tag: name for name, tag in LANGUAGE_TAGS.items()}


def language_named(given: str) -> str | None:
    """The story language `given` names, any case: a name ("german"), or an ISO 639-1
    code, with a region or script as Dialogflow and browsers write them ("de",
    "pt-BR", "zh_CN", "zh-Hant-TW"); None for no story language."""
    lowered = given.lower()
    if lowered in LANGUAGE_TAGS:
        return lowered
    return _LANGUAGE_OF_TAG.get(lowered.replace("_", "-").split("-")[0])


def language_code(given: str) -> str | None:
    """The ISO 639-1 code of the story language `given` names (as `language_named` reads
    it); None for no story language."""
    named = language_named(given)
    return None if named is None else LANGUAGE_TAGS[named]


MAX_LANGUAGES = 9
"""Further languages a story may have: Dialogflow's agents in the shared samples have at
most two, the EU's 24 official languages are the largest team we heard of, and each
language adds an index of every phrase to the story's memory."""
MAX_HISTORY_DAYS = 365
"""The longest a story keeps its turns: a year of a busy story is already the biggest
collection of the service (docs/scaling.md)."""
DEFAULT_HANDOFF_RETURN_MESSAGE = "You are talking to the bot again."
MAX_HANDOFF_RETURN_CHARACTERS = 4096
"""Telegram's longest message, as a person's message at the desk."""
REVIEW_MARGIN = 0.15
"""The issue's default: a match within 0.15 above the confidence is worth a look."""


@dataclass(frozen=True)
class Settings:
    confidence: float = 0.5
    """The score below which the fallback answers."""
    fallback: bool = True
    """False: a message that matches nothing gets no answer at all."""
    lifespan: int = 2
    """Misses a child context survives, and attempts to fill a prompted parameter."""
    language: str = "english"
    """How text is read (engine/analysis.py): a name of `LANGUAGES`, as `language_named`
    reads a name or code given; the semantic stage runs only if its model covers it."""
    languages: tuple[str, ...] = ()
    """Further languages' ISO 639-1 codes: the story's interactions and entities may have
    variants in them, and a user writing one is answered in it (docs/languages.md)."""
    answer_any_language: bool = False
    """Messages in any language of the multilingual model are understood, not only in
    `language` (docs/matching.md): the story's phrases and messages are then encoded by
    that model, and a turn's `default_language` says what the user wrote."""
    history: bool = True
    """Each /query turn is recorded (docs/history.md)."""
    history_days: int = 30
    """How long a recorded turn is kept."""
    redact: bool = True
    """E-mail addresses, phone, card and IBAN numbers are replaced before a turn is stored."""
    timezone: str = "UTC"
    """IANA name: built-in dates and times are resolved in it when a conversation
    does not supply `default_timezone`."""
    review_below: float | None = None
    """Matched turns scoring below it go to the misses inbox beside the fallbacks (None:
    the confidence + `REVIEW_MARGIN`)."""
    generate_knowledge_answers: bool = False
    """A knowledge answer from the documents' passages is written by the deployment's
    LLM, citing them (docs/knowledge-generation.md); with no LLM configured it stays
    the extractive one."""
    handoff_return_message: str = DEFAULT_HANDOFF_RETURN_MESSAGE
    """What the user is told when the agent desk gives the conversation back to the bot
    (docs/teams.md "The agent desk")."""

    @property
    def default_code(self) -> str:
        return LANGUAGE_TAGS[self.language]

    @property
    def multilingual(self) -> bool:
        """The story speaks a further language beside its default."""
        return len(self.spoken()) > 1

    def spoken(self) -> tuple[str, ...]:
        """Every language the story answers in, its default first, as ISO 639-1 codes."""
        return (self.default_code, *(c for c in self.languages if c != self.default_code))

    def __post_init__(self) -> None:
        """`languages` as a tuple whichever sequence it was given in (a stored document and
        a loaded body hold lists)."""
        object.__setattr__(self, "languages", tuple(self.languages))

    def reads_like(self, other: "Settings") -> bool:
        """Whether a story's phrases are read as with `other` (the same language and
        `answer_any_language`, so the same model encodes them)."""
        return (self.language, self.answer_any_language) == (
            other.language,
            other.answer_any_language,
        )

    def review_score(self) -> float:
        """The score below which a matched turn is in the misses inbox."""
        return self.confidence + REVIEW_MARGIN if self.review_below is None else self.review_below
