"""Finding entity values, by any of their synonyms, in what a user said.

A synonym is matched as a run of normalised words. Words the story never uses may be
typos: those are looked up among the synonyms' first words (engine/typos.py, a bounded
number per message), so "lage pizza" still finds "large". Known words are taken as
they are, which keeps the common case exact and fast.
"""

from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from bot_api.domain.entities import Entity
from bot_api.engine.analysis import Analyser
from bot_api.engine.typos import (
    MAX_LOOKUPS_PER_MESSAGE,
    TYPO_CUTOFF,
    TYPO_MIN_LENGTH,
    TypoIndex,
    may_be_typo,
)

BYTES_PER_SYNONYM = 450


@dataclass(frozen=True)
class Mention:
    entity: str
    value: Any
    """The entry's value (a string); a built-in entity's normalised JSON value."""
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class _Synonym:
    words: tuple[str, ...]
    entity: str
    value: str


class EntityRecognizer:
    def __init__(self, entities: Iterable[Entity], analysis: Analyser) -> None:
        """`analysis`: the story language's, which reads the messages' words too."""
        self._by_first_word: dict[str, list[_Synonym]] = {}
        self._synonym_count = 0
        for entity in entities:
            for entry in entity.entries:
                for synonym in entry.synonyms:
                    words = tuple(analysis.words(synonym))
                    if words:
                        self._synonym_count += 1
                        self._by_first_word.setdefault(words[0], []).append(
                            _Synonym(words, entity.name, entry.value)
                        )
        for candidates in self._by_first_word.values():
            candidates.sort(key=lambda synonym: -len(synonym.words))
        self._first_words = TypoIndex(self._by_first_word)

    def size_estimate(self) -> int:
        """Roughly the bytes the recognizer holds."""
        return BYTES_PER_SYNONYM * self._synonym_count

    def find(self, words: Sequence[str], known: Container[str] = frozenset()) -> list[Mention]:
        """Mentions in `words`, longest synonym first, left to right, never overlapping.

        Words that are a value of several entities are read as each of them: one mention
        per entity, all on the same span (the slot being filled decides which counts). A
        word in `known` (one the story's phrases use) is never taken for a typo.
        """
        mentions: list[Mention] = []
        position = 0
        lookups = 0
        while position < len(words):
            word = words[position]
            first_word: str | None = word
            if word not in self._by_first_word and word not in known:
                if lookups < MAX_LOOKUPS_PER_MESSAGE and may_be_typo(word):
                    lookups += 1
                    first_word = self._first_words.closest(word)
                else:
                    first_word = None
            readings = [] if first_word is None else self._at(words, position, first_word)
            if readings:
                mentions.extend(readings)
                position = readings[0].end
            else:
                position += 1
        return mentions

    def _at(self, words: Sequence[str], position: int, first_word: str) -> list[Mention]:
        """The longest synonyms said at `position` (whose first word was taken to be
        `first_word`), one per entity."""
        readings: list[Mention] = []
        for synonym in self._by_first_word.get(first_word, ()):
            end = position + len(synonym.words)
            if readings and end < readings[0].end:
                break  # shorter than the readings found: candidates are longest first
            if any(r.entity == synonym.entity for r in readings):
                continue
            if end <= len(words) and _same_words(words[position + 1 : end], synonym.words[1:]):
                text = " ".join(words[position:end])
                readings.append(Mention(synonym.entity, synonym.value, position, end, text))
        return readings


def _same_words(said: Sequence[str], expected: Sequence[str]) -> bool:
    return all(
        a == b or (len(b) >= TYPO_MIN_LENGTH and fuzz.ratio(a, b) >= TYPO_CUTOFF)
        for a, b in zip(said, expected, strict=True)
    )
