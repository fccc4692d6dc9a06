"""DOCX, read in the child process (python-docx parses its XML with lxml, which is C).

The ZIP is checked first with the stdlib's `zipfile`, from its central directory and
without inflating anything: entries, total uncompressed size and each large entry's
compression ratio (a zip bomb is refused before python-docx opens it). Kept: the body's
paragraphs and tables in document order; a paragraph styled `Heading N` (or `Title`)
is a step of the heading path, not a block; each table row is a block, its cells joined
by ` | ` (merged cells once); the core properties' title as the title. Dropped: headers,
footers, comments, footnotes, text boxes and pictures."""

import io
import re
import zipfile
from zipfile import BadZipFile

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph

from bot_api.knowledge.blocks import DocumentRefused, Extracted
from bot_api.knowledge.reading.collect import Blocks, HeadingPath
from bot_api.knowledge.reading.limits import (
    MAX_DOCX_ENTRIES,
    MAX_DOCX_PARAGRAPHS,
    MAX_DOCX_RATIO,
    MAX_DOCX_UNCOMPRESSED_BYTES,
)

HEADING_STYLE = re.compile(r"Heading ([1-9])")
RATIO_CHECKED_FROM = 1024 * 1024
"""Entries under 1 MB uncompressed may deflate as well as they like (a small XML part of
repeated markup does 50 times)."""


def check_zip(content: bytes) -> None:
    """Refuses a ZIP that would inflate beyond the bounds (`too_large`) or is no ZIP
    (`unreadable`), reading only its directory."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            entries = archive.infolist()
    except (BadZipFile, ValueError, OSError) as e:
        raise DocumentRefused("unreadable", f"the file is not a DOCX (a ZIP): {e}") from e
    if len(entries) > MAX_DOCX_ENTRIES:
        raise DocumentRefused("too_large", f"a DOCX may have {MAX_DOCX_ENTRIES} parts")
    total = 0
    for entry in entries:
        total += entry.file_size
        if total > MAX_DOCX_UNCOMPRESSED_BYTES:
            raise DocumentRefused(
                "too_large", f"a DOCX may inflate to {MAX_DOCX_UNCOMPRESSED_BYTES:,} bytes"
            )
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size > RATIO_CHECKED_FROM and ratio > MAX_DOCX_RATIO:
            raise DocumentRefused(
                "too_large", f"a DOCX part inflates {ratio:.0f} times: {entry.filename}"
            )


def read_docx(content: bytes) -> Extracted:
    """A DOCX's body text in blocks under its `Heading N` paragraphs."""
    check_zip(content)
    try:
        document = docx.Document(io.BytesIO(content))
    except (PackageNotFoundError, BadZipFile, KeyError, ValueError) as e:
        raise DocumentRefused("unreadable", f"the file is not a DOCX: {e}") from e
    blocks = Blocks()
    path = HeadingPath()
    items = 0
    for item in document.iter_inner_content():
        items += 1 if isinstance(item, Paragraph) else len(item.rows)
        if items > MAX_DOCX_PARAGRAPHS:
            raise DocumentRefused(
                "too_large", f"a DOCX may have {MAX_DOCX_PARAGRAPHS:,} paragraphs and rows"
            )
        if isinstance(item, Table):
            for row in item.rows:
                cells: list[str] = []
                for cell in row.cells:
                    text = " ".join(cell.text.split())
                    if text and (not cells or cells[-1] != text):
                        cells.append(text)
                blocks.add(" | ".join(cells), path.path)
            continue
        style = item.style.name if item.style is not None and item.style.name else ""
        level = HEADING_STYLE.fullmatch(style)
        if level or style == "Title":
            path.enter(int(level.group(1)) if level else 0, item.text)
        else:
            blocks.add(item.text, path.path)
    return blocks.extracted(document.core_properties.title or None)
