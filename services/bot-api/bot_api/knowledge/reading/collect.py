"""Blocks gathered in reading order under the character bound, shared by every reader."""

from bot_api.knowledge.blocks import Block, DocumentRefused, Extracted
from bot_api.knowledge.reading.limits import (
    MAX_CHARACTERS,
    MAX_HEADING_CHARACTERS,
    MAX_HEADING_DEPTH,
)


def heading_text(text: str) -> str:
    """A heading as kept: its whitespace collapsed, cut to MAX_HEADING_CHARACTERS."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return " ".join(text.split())[:MAX_HEADING_CHARACTERS]


class Blocks:
    """The blocks read so far; refuses the document (`too_large`) as soon as its text
    passes MAX_CHARACTERS, so that a huge file is not read to its end first."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.characters = 0

    def add(self, text: str, heading: tuple[str, ...] = (), page: int | None = None) -> None:
        # a lone surrogate (a PDF's broken text) could not be written as UTF-8
        text = text.strip().encode("utf-8", "replace").decode("utf-8")
        if not text:
            return
        self.characters += len(text)
        if self.characters > MAX_CHARACTERS:
            raise DocumentRefused(
                "too_large", f"the document has more than {MAX_CHARACTERS:,} characters"
            )
        self.blocks.append(Block(text, heading[:MAX_HEADING_DEPTH], page))

    def extracted(self, title: str | None) -> Extracted:
        title = heading_text(title) if title else None
        return Extracted(tuple(self.blocks), title or None)


class HeadingPath:
    """The path of headings above the text read so far, from headings of levels (1 the
    outermost): a heading closes those of its level and deeper."""

    def __init__(self) -> None:
        self.levels: list[tuple[float, str]] = []

    def enter(self, level: float, text: str) -> None:
        text = heading_text(text)
        if not text:
            return
        while self.levels and self.levels[-1][0] >= level:
            self.levels.pop()
        self.levels.append((level, text))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.levels)
