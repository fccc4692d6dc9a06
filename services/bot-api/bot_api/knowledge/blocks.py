"""What reading a document gives: its text as blocks, each under its heading path and on
its page, before the blocks are cut into passages (passages.py)."""

from dataclasses import dataclass
from typing import Literal

RefusalKind = Literal["unsupported", "too_large", "unreadable", "timed_out"]


@dataclass(frozen=True)
class Block:
    """A run of the document's text that belongs together: a paragraph, a list, a table's
    rows; `heading` is the path of headings above it (outermost first), `page` its page
    (PDF only, from 1)."""

    text: str
    heading: tuple[str, ...] = ()
    page: int | None = None


@dataclass(frozen=True)
class Extracted:
    """A document's readable text in reading order; `title` where the file names one (a
    PDF's or DOCX's metadata, an HTML `<title>`, a Markdown document's first heading)."""

    blocks: tuple[Block, ...]
    title: str | None = None


class DocumentRefused(Exception):
    """A file that is not read: of a type not read (`unsupported`), beyond a limit
    (`too_large`: bytes, pages, characters, nesting), broken (`unreadable`), or taking
    longer than reading may (`timed_out`). The views answer 415, 413 and 400."""

    def __init__(self, kind: RefusalKind, message: str) -> None:
        super().__init__(message)
        self.kind: RefusalKind = kind
        self.message = message
