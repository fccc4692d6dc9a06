"""PDF, read in the child process (pdfium is C): each page's text from its text page,
headings by font size, the metadata Title as the title.

Headings are lines set larger than the document's body text (the font size most of its
characters have) by more than HEADING_RATIO; a larger heading is outside a smaller one
(26.7 pt "PART 1" holds 21.3 pt "Setting up the tool" in the real handbook). Paragraphs
are the lines between headings, a paragraph ending at a line that ends a sentence and
stops short of the page's longest line. Lines of digits alone (page numbers) are dropped.
Each block keeps its page (from 1). Reading the real 13-page handbook (0.96 MB, 18,000
characters, 63 blocks) takes 0.05-0.08 s in pdfium, text and font sizes, 0.26 s through
the child (median of 5, its start included). A scanned PDF has no text and gives no
blocks."""

import re
from collections import Counter

import pypdfium2  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from bot_api.knowledge.blocks import DocumentRefused, Extracted
from bot_api.knowledge.reading.collect import Blocks, HeadingPath
from bot_api.knowledge.reading.limits import MAX_CHARACTERS, MAX_PDF_PAGES

HEADING_RATIO = 1.15
"""A line is a heading at 15% over the body's size: the handbook's body is 14.7 pt, its
smallest heading 18.7 pt and its captions 13.3 pt."""

MAX_HEADING_LENGTH = 150
"""A larger line of over 150 characters is a paragraph set large, not a heading."""

SENTENCE_END = re.compile(r"[.!?:;\"\u201d\u2019)]$")
PAGE_NUMBER = re.compile(r"\d+")

Line = tuple[str, float]


def page_lines(page: pypdfium2.PdfPage) -> list[Line]:
    """A page's lines with the font size of each one's first character."""
    textpage = page.get_textpage()
    try:
        text = textpage.get_text_range()
        aligned = len(text) == textpage.count_chars()
        lines: list[Line] = []
        at = 0
        for line in text.split("\r\n"):
            stripped = line.strip()
            if stripped:
                first = at + len(line) - len(line.lstrip())
                size = pdfium_c.FPDFText_GetFontSize(textpage.raw, first) if aligned else 0.0
                lines.append((stripped, round(float(size), 1)))
            at += len(line) + 2
        return lines
    finally:
        textpage.close()


def read_pdf(content: bytes) -> Extracted:
    """A PDF's text in blocks; beyond MAX_PDF_PAGES pages or MAX_CHARACTERS it is
    `too_large`, a file pdfium cannot open (or a password-protected one) `unreadable`."""
    try:
        document = pypdfium2.PdfDocument(content)
    except pypdfium2.PdfiumError as e:
        raise DocumentRefused("unreadable", f"the file is not a PDF pdfium can open: {e}") from e
    try:
        if len(document) > MAX_PDF_PAGES:
            raise DocumentRefused("too_large", f"a PDF may have {MAX_PDF_PAGES} pages")
        pages: list[list[Line]] = []
        characters = 0
        for page in document:
            pages.append(page_lines(page))
            characters += sum(len(text) for text, _ in pages[-1])
            if characters > MAX_CHARACTERS:
                raise DocumentRefused(
                    "too_large", f"the document has more than {MAX_CHARACTERS:,} characters"
                )
        title = document.get_metadata_value("Title") or None
    finally:
        document.close()
    return pdf_blocks(pages, title)


def pdf_blocks(pages: list[list[Line]], title: str | None) -> Extracted:
    """The pages' lines as paragraphs under headings found by font size."""
    sizes: Counter[float] = Counter()
    for lines in pages:
        for text, size in lines:
            sizes[size] += len(text)
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    blocks = Blocks()
    path = HeadingPath()
    for number, lines in enumerate(pages, start=1):
        widest = max((len(text) for text, _ in lines), default=0)
        paragraph: list[str] = []
        for text, size in lines:
            if PAGE_NUMBER.fullmatch(text):
                continue
            if body and size > body * HEADING_RATIO and len(text) <= MAX_HEADING_LENGTH:
                blocks.add(" ".join(paragraph), path.path, number)
                paragraph = []
                path.enter(-size, text)
                continue
            paragraph.append(text)
            if SENTENCE_END.search(text) and len(text) < 0.85 * widest:
                blocks.add(" ".join(paragraph), path.path, number)
                paragraph = []
        blocks.add(" ".join(paragraph), path.path, number)
    return blocks.extracted(title)
