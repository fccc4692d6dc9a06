"""How text in each story language becomes the words and terms of the lexical stage.

Every language is read the same way first: lower-cased, accents dropped, split on what
is neither a letter nor a digit (`text.tokens`: "Où est-ce?" -> ou est ce). Then:

- languages with spaces between words (english, german, ...: Snowball's) stem each word
  with PyStemmer's Snowball stemmer of the language ("kaufen" -> "kauf");
- chinese is segmented into words by rjieba (jieba-rs): "我想订两张机票" -> 我想订 两张
  机票; its words are not inflected, so nothing is stemmed;
- japanese is segmented by SudachiPy (its core dictionary), each word read as its
  dictionary form ("ピザを買いました" -> ピザ 買う), which is its stem, and its particles
  and auxiliary verbs left out (`JAPANESE_FUNCTION_WORDS`); kana keep their voicing marks
  (が is not か), the accents of other scripts are dropped.

Latin words inside Chinese or Japanese text ("iPhone", "café") come out as in any other
language. Besides its stem, a word is matched by its `pieces`. An analyser is made once
per language and process (`analyser`); why these segmenters, as measured, is in
docs/matching.md ("Languages").
"""

import functools
import re
import threading
import unicodedata
from collections.abc import Callable
from typing import Any

import Stemmer

from bot_api.domain.settings import STEMMED_LANGUAGES
from bot_api.engine.text import tokens

PIECE_LENGTH = 4
EAST_ASIAN_PIECES = (1, 2)
"""A word in Chinese or Japanese script is matched by its characters and pairs of
characters, with a space at each end as for other words (most words there are two or
three characters, each carrying meaning: 机票 and 订票 share 票). Measured on xSID zh,
lexical stage, rjieba: four-letter pieces 0.842, pairs 0.872, characters 0.878,
characters and pairs 0.914 (0.874 without the spaces at the ends); ja 0.928 alike.
The space alone is no piece: every word had it twice, so every two texts shared it,
and its cosine (about 0.13) passed the calibration knee, so a story's greetings
answered 84 of XQuAD's 1,190 Chinese questions and its small story let 6 % of the
off-topic messages in Japanese fall back. Without it (in process, bench/tuning_languages'
stories): xSID zh 0.900 at the default confidence (0.912 before; best answer 0.918
against 0.914), ja 0.932 (as before); the small stories' off-topic messages falling
back zh 31 % (25 %), ja 50 % (12 %)."""
_WORD = re.compile(r"[^\W_]+")
EAST_ASIAN_LETTERS = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f"
"""Kana and CJK ideographs, as a regular expression's character class holds them."""
_EAST_ASIAN = re.compile(f"[{EAST_ASIAN_LETTERS}]")


class Analyser:
    """Turns a story language's text into words (`words`) and a word into its stem."""

    def __init__(self, language: str) -> None:
        self.language = language
        self._segment = _SEGMENTERS.get(language)
        if self._segment is not None:
            self._segment("")  # loads its dictionary now, not in a turn
        self.stem: Callable[[str], str] = (
            Stemmer.Stemmer(language).stemWord if language in STEMMED_LANGUAGES else _as_it_is
        )

    def words(self, text: str) -> list[str]:
        """The normalised words of `text`, in order."""
        if self._segment is None or text.isascii():
            return tokens(text)
        words: list[str] = []
        for piece in self._segment(text):
            words.extend(_WORD.findall(piece) if _EAST_ASIAN.search(piece) else tokens(piece))
        return words


@functools.cache
def analyser(language: str) -> Analyser:
    """The analyser of `language` (one a process: a segmenter loads its dictionary once)."""
    return Analyser(language)


def pieces(word: str) -> list[str]:
    """The parts of a word that still match when it is said another way: its four-letter
    pieces, with a space at each end (other forms, compounds, typos: " pizz", "izza",
    "zza "); for a word in Chinese or Japanese script its `EAST_ASIAN_PIECES`."""
    padded = f" {word} "
    if word.isascii() or not _EAST_ASIAN.search(word):
        return [padded[i : i + PIECE_LENGTH] for i in range(max(1, len(padded) - PIECE_LENGTH + 1))]
    return [
        piece
        for length in EAST_ASIAN_PIECES
        for i in range(len(padded) - length + 1)
        if not (piece := padded[i : i + length]).isspace()
    ]


def _as_it_is(word: str) -> str:
    return word


def _chinese(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text.casefold())
    return _jieba()("".join(c for c in plain if not unicodedata.combining(c)))


@functools.cache
def _jieba() -> Callable[[str], list[str]]:
    """rjieba's `cut`, imported by the first Chinese story: its dictionary takes 33 MiB."""
    import rjieba

    return rjieba.cut


_japanese_tokenizers = threading.local()
"""A SudachiPy tokenizer may not be shared between threads: one a thread, all reading
one dictionary (memory-mapped: 150 MiB of it resident once read through, shared)."""


@functools.cache
def _japanese_dictionary() -> Any:
    """SudachiPy's core dictionary, opened by the first Japanese story."""
    from sudachipy import Dictionary

    return Dictionary(dict="core")


JAPANESE_FUNCTION_WORDS = frozenset({"助詞", "助動詞"})
"""Particles (を, は, に, か) and auxiliary verbs (ます, です, たい), which nearly every
sentence says: left out, as matching on them made "銀行は開いていますか" an opening-hours
question. Measured in process (bench/tuning_languages.py's stories): xSID ja, its own
story 0.928 -> 0.932 (lexical, and answering any language alike), the story of English,
German and Japanese variants asked Japanese 0.936 -> 0.928; the small Japanese story
(bench/data/small_stories.json) answered 4 -> 5 of its 6 paraphrases, and let 1 -> 2 of
its 16 off-topic messages fall back. A text of nothing else keeps them all."""


def _japanese(text: str) -> list[str]:
    tokenizer = getattr(_japanese_tokenizers, "tokenizer", None)
    if tokenizer is None:
        tokenizer = _japanese_dictionary().tokenizer("C")
        _japanese_tokenizers.tokenizer = tokenizer
    normal = unicodedata.normalize("NFKC", text.casefold())
    said = tokenizer.tokenize(normal)
    content = [m for m in said if m.part_of_speech()[0] not in JAPANESE_FUNCTION_WORDS]
    return [m.dictionary_form() for m in content or said]


_SEGMENTERS: dict[str, Callable[[str], list[str]]] = {"chinese": _chinese, "japanese": _japanese}
