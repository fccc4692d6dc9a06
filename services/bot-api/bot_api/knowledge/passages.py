"""A document's blocks cut into passages: the unit a question is answered from and cited.

A passage is a block (a paragraph, a list, a table's rows: of one heading and page) or,
for a block longer than `PASSAGE_CHARACTERS`, a run of at most `SENTENCES_PER_PASSAGE` of
its whole sentences within that many characters. XQuAD's paragraphs (the gold passages
of docs/knowledge.md's figures) hold 4.9 sentences and 735 characters on average, so most
stay whole. Each passage keeps its character offsets in the document's text (the blocks
joined by blank lines); its sentences, from which the answer sentence is taken
(answer.py), are found when it answers (`sentences`).

Sentences are split by pysbd (rule-based, 23 languages; English rules for the rest). It
reads some 100,000 characters a second here (XQuAD en's 188,362 in 2.0 s), so only long
blocks are split on upload and a passage's sentences are found once it answers. Its
rules are quadratic on long runs without a sentence end, so a block is cut at
`BLOCK_CHARACTERS` first: 4,000 characters split in 6-9 ms, 40,000 in over a second.
"""

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pysbd  # type: ignore[import-untyped]

from bot_api.domain.settings import LANGUAGE_TAGS
from bot_api.knowledge.blocks import Extracted

SENTENCES_PER_PASSAGE = 6
PASSAGE_CHARACTERS = 1200
BLOCK_CHARACTERS = 4000
BLOCK_GAP = "\n\n"
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Passage:
    """`start` and `end`: the passage's place in its document's text."""

    id: str
    document_id: str
    text: str
    heading: tuple[str, ...]
    page: int | None
    start: int
    end: int


def passages_of(extracted: Extracted, document_id: str, language: str) -> tuple[Passage, ...]:
    """The passages of a document read as `language` (a story language's name)."""
    passages: list[Passage] = []
    offset = 0
    for block in extracted.blocks:
        for piece_start, piece in _pieces(block.text):
            for start, end in _runs(piece, language):
                text = piece[start:end]
                passages.append(
                    Passage(
                        id=f"{document_id}.{len(passages)}",
                        document_id=document_id,
                        text=text,
                        heading=block.heading,
                        page=block.page,
                        start=offset + piece_start + start,
                        end=offset + piece_start + end,
                    )
                )
        offset += len(block.text) + len(BLOCK_GAP)
    return tuple(passages)


def document_text(extracted: Extracted) -> str:
    """The text the passages' offsets point into."""
    return BLOCK_GAP.join(block.text for block in extracted.blocks)


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    """The block in pieces of at most `BLOCK_CHARACTERS`, cut at a space where one is
    near the end."""
    start = 0
    while start < len(text):
        end = min(len(text), start + BLOCK_CHARACTERS)
        if end < len(text):
            space = text.rfind(" ", start + BLOCK_CHARACTERS // 2, end)
            end = space + 1 if space > 0 else end
        yield start, text[start:end]
        start = end


def _runs(text: str, language: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of each passage of a piece of a block: the whole piece when short
    enough, else runs of its sentences."""
    if len(text) <= PASSAGE_CHARACTERS:
        stripped = text.strip()
        if stripped:
            start = text.index(stripped[0])
            yield start, start + len(stripped)
        return
    for group in _groups(sentences(text, language)):
        yield from _within_bounds(text, group[0][0], group[-1][1])


def _within_bounds(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A run of one sentence longer than `PASSAGE_CHARACTERS` (a list or a table read as
    prose, text without full stops) cut at the last space before each bound."""
    while end - start > PASSAGE_CHARACTERS:
        space = text.rfind(" ", start + PASSAGE_CHARACTERS // 2, start + PASSAGE_CHARACTERS)
        cut = space if space > start else start + PASSAGE_CHARACTERS
        yield start, len(text[:cut].rstrip())
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        yield start, end


def sentences(text: str, language: str) -> list[tuple[int, int]]:
    """Each sentence's (start, end) in `text`, trailing spaces left out; none empty."""
    spans = []
    for span in _segmenter(_pysbd_language(language)).segment(text):
        start, end = span.start, span.end
        while end > start and text[end - 1].isspace():
            end -= 1
        while start < end and text[start].isspace():
            start += 1
        if end > start:
            spans.append((start, end))
    return spans


def _groups(spans: list[tuple[int, int]]) -> Iterator[list[tuple[int, int]]]:
    group: list[tuple[int, int]] = []
    for sentence in spans:
        if group and (
            len(group) == SENTENCES_PER_PASSAGE or sentence[1] - group[0][0] > PASSAGE_CHARACTERS
        ):
            yield group
            group = []
        group.append(sentence)
    if group:
        yield group


def _pysbd_language(language: str) -> str:
    tag = LANGUAGE_TAGS.get(language, "en")
    return tag if tag in pysbd.languages.LANGUAGE_CODES else "en"


@functools.cache
def _segmenter(tag: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=tag, clean=False, char_span=True)


def one_line(text: str) -> str:
    """`text` with its runs of white space as single spaces (an answer as sent)."""
    return _SPACES.sub(" ", text).strip()
