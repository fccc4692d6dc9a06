"""Reading an uploaded document into blocks, within bounds (docs/knowledge-reading.md).

`read_document` is the one entry point. Plain text and Markdown are read in this process
on a thread (pure Python); PDF, DOCX and HTML, whose parsers are C (pdfium, lxml), in a
fresh child process bounded in memory, CPU and wall time (process.py, child.py). The
readers (and asyncio) are imported only when called, since the child imports this
package too and should load only the reader it runs."""

from bot_api.knowledge.blocks import DocumentRefused, Extracted
from bot_api.knowledge.reading.limits import MAX_FILE_BYTES

DOCUMENT_TYPES = (
    "application/pdf",
    "text/html",
    "text/markdown",
    "text/plain",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
)
"""The media types read (a parameter such as `; charset=utf-8` is ignored)."""


async def read_document(content: bytes, media_type: str) -> Extracted:
    """The blocks and title of a file of `media_type`, or DocumentRefused: `unsupported`
    (a type not in DOCUMENT_TYPES), `too_large` (over a bound of limits.py),
    `unreadable` (broken, empty, or its reader died), `timed_out`."""
    kind = media_type.split(";")[0].strip().lower()
    if kind not in DOCUMENT_TYPES:
        raise DocumentRefused("unsupported", f"documents of type {media_type!r} are not read")
    if len(content) > MAX_FILE_BYTES:
        raise DocumentRefused("too_large", f"a document may have {MAX_FILE_BYTES:,} bytes")
    if not content.strip():
        raise DocumentRefused("unreadable", "the file is empty")
    if kind in ("text/plain", "text/markdown"):
        import asyncio

        from bot_api.knowledge.reading.text import read_markdown, read_plain

        read = read_plain if kind == "text/plain" else read_markdown
        return await asyncio.to_thread(read, content)
    from bot_api.knowledge.reading.limits import MAX_HTML_BYTES
    from bot_api.knowledge.reading.process import read_in_child

    if kind == "text/html" and len(content) > MAX_HTML_BYTES:
        raise DocumentRefused("too_large", f"an HTML page may have {MAX_HTML_BYTES:,} bytes")
    return await read_in_child(content, kind)


__all__ = ["DOCUMENT_TYPES", "DocumentRefused", "Extracted", "read_document"]
