"""Finding the known word a typo was meant to be, in bounded work whatever the story.

A known word within `TYPO_CUTOFF` of `fuzz.ratio` has a length within two thirds to
half again of the typo's (the ratio is twice the common letters over both lengths), and
a typo nearly always keeps the word's first or second letter. Known words are bucketed
by length and by each of those two letters, so a look-up reads only the buckets that
can hold the answer, nearest lengths first, and compares at most `MAX_COMPARED` words.
Words outside `TYPO_MIN_LENGTH`..`TYPO_MAX_LENGTH` are neither indexed nor corrected.

Callers bound the look-ups of one message to `MAX_LOOKUPS_PER_MESSAGE`, so a message of
unseen words costs the same small amount on a story of any size (docs/reliability.md);
`Corrector` does so for the lexical stage's stems, and remembers what it found.
"""

import math
from collections.abc import Callable, Iterable, Sequence

from rapidfuzz import fuzz, process

from bot_api.engine.phrases import PIECE_MARK, SLOT_MARK

TYPO_MIN_LENGTH = 4
TYPO_MAX_LENGTH = 32
TYPO_CUTOFF = 80.0
MAX_COMPARED = 1000
MAX_LOOKUPS_PER_MESSAGE = 12
MAX_CORRECTIONS = 10_000
_LETTERS_KEPT = (0, 1)

_Bucket = tuple[int, str, int]
"""(position of the letter, the letter, length of the word)"""


def may_be_typo(word: str) -> bool:
    return TYPO_MIN_LENGTH <= len(word) <= TYPO_MAX_LENGTH


class TypoIndex:
    def __init__(self, words: Iterable[str]) -> None:
        self._buckets: dict[_Bucket, list[str]] = {}
        for word in words:
            if may_be_typo(word):
                for position in _LETTERS_KEPT:
                    key = (position, word[position], len(word))
                    self._buckets.setdefault(key, []).append(word)

    def closest(self, typo: str) -> str | None:
        """The known word nearest `typo` (at least `TYPO_CUTOFF` alike), if any."""
        if not may_be_typo(typo):
            return None
        length = len(typo)
        lengths = range(math.ceil(length * 2 / 3), math.floor(length * 3 / 2) + 1)
        compared: list[str] = []
        for candidate_length in sorted(lengths, key=lambda n: abs(n - length)):
            for position in _LETTERS_KEPT:
                bucket = self._buckets.get((position, typo[position], candidate_length), ())
                compared.extend(bucket[: MAX_COMPARED - len(compared)])
            if len(compared) == MAX_COMPARED:
                break
        best = process.extractOne(typo, compared, scorer=fuzz.ratio, score_cutoff=TYPO_CUTOFF)
        return None if best is None else str(best[0])


class Corrector:
    """A story's stems, and the corrections of the stems it never uses found so far."""

    def __init__(self, stems: Iterable[str]) -> None:
        self._typos = TypoIndex(stems)
        self._corrections: dict[str, str] = {}

    def corrected(self, terms: Sequence[str], used: Callable[[str], int]) -> list[str]:
        """Stems the story never uses (`used` counts its phrases using a term), replaced
        by the closest one it does (a typo).

        Word pieces and slot words are left alone: pieces already tolerate typos. At most
        `MAX_LOOKUPS_PER_MESSAGE` stems not seen before are looked up; the rest stay as
        said (their pieces still match).
        """
        result: list[str] = []
        looked_up = 0
        for term in terms:
            if used(term) or not may_be_typo(term) or term[0] in (PIECE_MARK, SLOT_MARK):
                result.append(term)
                continue
            if term not in self._corrections:
                if looked_up == MAX_LOOKUPS_PER_MESSAGE:
                    result.append(term)
                    continue
                looked_up += 1
                if len(self._corrections) >= MAX_CORRECTIONS:
                    self._corrections.clear()
                self._corrections[term] = self._typos.closest(term) or term
            result.append(self._corrections[term])
        return result
