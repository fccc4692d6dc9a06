"""The language a message is written in, for stories that answer any language: a turn's
`default_language` then says what the user wrote (docs/matching.md).

py3langid (langid.py's naive Bayes over byte n-grams, its model in the package) chooses
among the story languages it knows (all but Yiddish). Measured on xSID's test messages
among 20 languages: 0.88 (Danish) to 1.00 (Japanese) right, 0.05 ms a message; Lingua's
low-accuracy mode scored 0.48 to 1.00 in 0.4 ms (docs/matching.md). A short message
("ok", "hi") reads as many languages alike, so below `SURE` no language is claimed.
"""

import threading
from functools import cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

from bot_api.domain.settings import LANGUAGE_TAGS

SURE = 0.5
"""The share of the probability the likeliest language must have among those asked
about: "set an alarm for 7" reads 0.48 English, "what time is it" 0.998."""

_loading = threading.Lock()


def written_in(text: str) -> str | None:
    """The ISO 639-1 code of the story language the text is most likely in; None when no
    language is likely enough."""
    tag, probability = _identifier().classify(text)
    return str(tag) if probability >= SURE else None


def language_of(written: str | None, noted: object, story_language: str) -> str:
    """A turn's `default_language` when the turn does not supply it: the language the
    text is `written` in (`written_in`); when unsure, the one `noted` before, or the
    story's."""
    return (
        written
        or (noted if isinstance(noted, str) and noted else None)
        or LANGUAGE_TAGS[story_language]
    )


def _identifier() -> LanguageIdentifier:
    """Read once (0.8 s), on first use."""
    with _loading:
        return _read_identifier()


@cache
def _read_identifier() -> LanguageIdentifier:
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(sorted(set(LANGUAGE_TAGS.values()) & set(identifier.nb_classes)))
    return identifier
