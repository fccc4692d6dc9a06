"""A user-says phrase as the lexical stage reads it: its words as the story's language
is analysed (engine/analysis.py), each `{{entity:alias}}` slot a word `@entity`.

Word pieces are terms marked `#` (engine/matching.py); neither mark can begin a word of
the analysis, so neither is ever taken for a typo (engine/typos.py).
"""

from dataclasses import dataclass

from bot_api.domain.interactions import ENTITY_SLOT
from bot_api.engine.analysis import Analyser, pieces

SLOT_MARK = "@"
PIECE_MARK = "#"


@dataclass(frozen=True)
class Phrase:
    """A user-says phrase as matched: its words, and its slots in order."""

    source: str
    words: tuple[str, ...]
    slots: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        return " ".join(self.words)


def word_terms(analysis: Analyser, word: str) -> list[str]:
    """The terms a word is matched by: its stem and its pieces, marked."""
    return [analysis.stem(word), *(PIECE_MARK + piece for piece in pieces(word))]


def slot_word(entity: str) -> str:
    return SLOT_MARK + entity


def compile_phrase(source: str, analysis: Analyser) -> Phrase:
    """The phrase's words as `analysis` reads them, its slots as slot words."""
    words: list[str] = []
    slots: list[tuple[str, str]] = []
    position = 0
    for match in ENTITY_SLOT.finditer(source):
        words.extend(analysis.words(source[position : match.start()]))
        words.append(slot_word(match.group(1)))
        slots.append((match.group(1), match.group(2)))
        position = match.end()
    words.extend(analysis.words(source[position:]))
    return Phrase(source, tuple(words), tuple(slots))
