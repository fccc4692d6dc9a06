"""Which language a turn is read and answered in (docs/languages.md "Which language a
turn is in"), decided once per turn before anything is matched."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot_api.domain.interactions import Interaction
from bot_api.domain.settings import Settings, language_code
from bot_api.engine.language_detection import language_of, written_in
from bot_api.engine.turn import Turn


@dataclass(frozen=True)
class TurnLanguage:
    written: str | None
    """The language the message is surely written in, when the story's language choice
    or its cross-lingual reading needs it (engine/language_detection.py)."""
    language: str
    """The ISO 639-1 code of the story language the turn is read and answered in."""
    noted: str | None
    """What the session notes in `default_language` for the next turns, or None."""
    by_meaning_alone: bool
    """A message of a story answering any language not surely written in the language
    it is read in is matched by meaning alone: its words are no evidence to a lexical
    stage reading another language (xSID's English story asked in German 0.630 blended,
    0.790 so; in English 0.900 either way)."""


def turn_language(
    settings: Settings,
    session: Mapping[str, Any],
    turn: Turn,
    *,
    encoded: bool,
    cross_lingual: bool,
) -> TurnLanguage:
    """The turn's language: the language the turn names, else the session's (its
    parameters, `session`), else the one the message is surely written in, if the story
    speaks it; else the story's default. A story of several languages notes the user's;
    one of one language answering any language (`encoded`: its semantic stage reads the
    turn) notes what the user wrote."""
    needed = settings.multilingual or cross_lingual
    written = written_in(turn.query) if turn.query and needed else None
    named = (
        _code(turn.parameters.get("default_language")),
        _code(session.get("default_language")),
    )
    chosen = next((c for c in named if c is not None), written)
    language = chosen if chosen in settings.spoken() else settings.default_code
    noted = chosen if settings.multilingual and chosen is not None else None
    any_language = encoded and settings.answer_any_language and bool(turn.query)
    if any_language and not settings.multilingual and "default_language" not in turn.parameters:
        noted = language_of(written, session.get("default_language"), settings.language)
    return TurnLanguage(written, language, noted, any_language and written != language)


def answered_in(
    settings: Settings, interaction: Interaction | None, language: str, asking: bool
) -> str:
    """The language a turn read in `language` is answered in: that one where the
    interaction has a variant in it (its prompts, for a question), else the story's
    default."""
    translation = None if interaction is None else interaction.translations.get(language)
    if translation is not None and (translation.prompts if asking else translation.responses):
        return language
    return settings.default_code


def _code(given: object) -> str | None:
    """The ISO 639-1 code of a language a turn or a session names; None for none."""
    return language_code(given) if isinstance(given, str) and given else None
