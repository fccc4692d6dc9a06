"""The child process that reads one PDF, DOCX or HTML file: `python -m
bot_api.knowledge.reading.child MEDIA_TYPE`, the file on stdin, one JSON object on stdout
(`{"title": ..., "blocks": [{"text", "heading", "page"}]}` or `{"refused": kind,
"message": ...}`). Its address space and CPU are bounded before anything is parsed, so a
hostile file takes down this process and not the service; it imports only the reader it
needs (no aiohttp, no asyncio)."""

import json
import resource
import sys
from collections.abc import Callable

from bot_api.knowledge.blocks import DocumentRefused, Extracted
from bot_api.knowledge.reading.limits import (
    CHILD_CPU_SECONDS,
    CHILD_MEMORY_BYTES,
    MAX_FILE_BYTES,
)

PDF = "application/pdf"
HTML = "text/html"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
CHILD_TYPES = (PDF, HTML, DOCX)


def reader(media_type: str) -> Callable[[bytes], Extracted]:
    """The reader of a media type, imported only now (each pulls in its C library)."""
    if media_type == PDF:
        from bot_api.knowledge.reading.pdf import read_pdf

        return read_pdf
    if media_type == HTML:
        from bot_api.knowledge.reading.html_page import read_html

        return read_html
    if media_type == DOCX:
        from bot_api.knowledge.reading.word import read_docx

        return read_docx
    raise DocumentRefused("unsupported", f"the child does not read {media_type}")


def bound() -> None:
    """The child's bounds: RLIMIT_AS, and RLIMIT_CPU with SIGXCPU at the soft bound and
    SIGKILL a second later."""
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CHILD_CPU_SECONDS, CHILD_CPU_SECONDS + 1))


def answer(media_type: str, content: bytes) -> dict[str, object]:
    """What the child prints for a file."""
    try:
        read = reader(media_type)
        extracted = read(content)
    except DocumentRefused as e:
        return {"refused": e.kind, "message": e.message}
    except MemoryError:
        return {"refused": "too_large", "message": "reading the file takes too much memory"}
    except RecursionError:
        return {"refused": "too_large", "message": "the file nests too deep to read"}
    except Exception as e:  # a C library's own error on a broken file
        return {"refused": "unreadable", "message": f"the file cannot be read: {e!r}"[:500]}
    return {
        "title": extracted.title,
        "blocks": [
            {"text": b.text, "heading": list(b.heading), "page": b.page} for b in extracted.blocks
        ],
    }


def main(argv: list[str]) -> int:
    bound()
    if len(argv) != 2:
        print("usage: python -m bot_api.knowledge.reading.child MEDIA_TYPE", file=sys.stderr)
        return 2
    content = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(content) > MAX_FILE_BYTES:
        reply: dict[str, object] = {"refused": "too_large", "message": "the file is too large"}
    else:
        reply = answer(argv[1], content)
    sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode("utf-8"))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
