"""How knowledge reads text: as the matcher reads the story's language (its words,
stemmed or segmented: engine/analysis.py), how much each word of a question says, and
how much of a question a text holds.

A word's weight is its rarity among the story's passages (inverse document frequency,
index.py) times its rarity in the language (`background`): in a story of a handful of
passages the words no passage has are mostly the common ones ("how", "do", "have"),
which would otherwise weigh most. The language's word frequencies are wordfreq's small
lists (some 30,000 words in each of 44 languages, 12 MB for English; read once per
language, when a story of it is first indexed).
"""

import functools
import math
from collections.abc import Mapping, Set

from bot_api.engine.analysis import analyser
from bot_api.engine.language_weights import word_frequencies
from bot_api.engine.text import tokens

COMMONEST_ZIPF = 7.5
"""Words this common ("the" 7.73, "to" 7.43 on the Zipf scale: log10 of a word's count
per billion) weigh `LEAST_WEIGHT`; the weight rises linearly to 1 at `RARE_ZIPF`."""
RARE_ZIPF = 3.5
"""Rarer words ("penguins" 3.67) weigh fully, as do those the list does not hold."""
LEAST_WEIGHT = 0.1


def terms_of(language: str, text: str) -> list[str]:
    reading = analyser(language)
    return [reading.stem(word) for word in reading.words(text)]


def question_terms(language: str, text: str) -> dict[str, float]:
    """Each term of a question and what its word says in the language (`background`)."""
    reading = analyser(language)
    weights: dict[str, float] = {}
    for word in reading.words(text):
        term = reading.stem(word)
        weights[term] = max(weights.get(term, 0.0), background(language, word))
    return weights


def background(language: str, word: str) -> float:
    frequency = _frequencies(language).get(word)
    if frequency is None:
        return 1.0
    zipf = math.log10(frequency) + 9
    share = (COMMONEST_ZIPF - zipf) / (COMMONEST_ZIPF - RARE_ZIPF)
    return min(1.0, max(LEAST_WEIGHT, share))


@functools.cache
def _frequencies(language: str) -> Mapping[str, float]:
    """The language's word frequencies by word as the analysers write it (lower-cased,
    accents dropped); empty for a language wordfreq has no list of."""
    written: dict[str, float] = {}
    for word, frequency in word_frequencies(language).items():
        normal = tokens(word)
        if len(normal) == 1:
            written[normal[0]] = max(written.get(normal[0], 0.0), frequency)
    return written


def coverage(weights: Mapping[str, float], held: Set[str]) -> float:
    """The share of the question's term weight (`weights`) among the terms `held`."""
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in held) / total if total else 0.0
