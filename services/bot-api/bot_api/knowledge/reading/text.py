"""Plain text and Markdown, read in the service's process (off the event loop): pure
Python parsers with no C to blow up, bounded by the file's bytes and MAX_CHARACTERS."""

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from bot_api.knowledge.blocks import Extracted
from bot_api.knowledge.reading.collect import Blocks, HeadingPath
from bot_api.knowledge.reading.decoding import decode

BLANK_LINES = re.compile(r"\n[ \t]*\n")


def read_plain(content: bytes) -> Extracted:
    """Plain text: one block per paragraph (split on blank lines), no headings, no title."""
    text = decode(content).replace("\r\n", "\n").replace("\r", "\n")
    blocks = Blocks()
    for paragraph in BLANK_LINES.split(text):
        blocks.add(paragraph)
    return blocks.extracted(None)


BLOCK_OPENERS = {
    "paragraph_open": "paragraph_close",
    "bullet_list_open": "bullet_list_close",
    "ordered_list_open": "ordered_list_close",
    "table_open": "table_close",
    "blockquote_open": "blockquote_close",
}


def read_markdown(content: bytes) -> Extracted:
    """Markdown (CommonMark with tables): headings build the path (a `##` under a `#`),
    each top-level paragraph, list, table, quote and code block is a block (a list or a
    table as a whole, its items or rows on lines, table cells joined by ` | `); the first
    `#` heading is the title. Inline markup is dropped, the text of links kept."""
    text = decode(content)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    blocks = Blocks()
    path = HeadingPath()
    title: str | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            inline = tokens[i + 1].content if i + 1 < len(tokens) else ""
            level = int(token.tag[1])
            path.enter(level, inline)
            if level == 1 and title is None and inline.strip():
                title = inline
            i += 3
        elif token.type in ("fence", "code_block"):
            blocks.add(token.content, path.path)
            i += 1
        elif token.type in BLOCK_OPENERS and token.level == 0:
            close = BLOCK_OPENERS[token.type]
            lines: list[str] = []
            row: list[str] = []
            i += 1
            while i < len(tokens) and not (tokens[i].type == close and tokens[i].level == 0):
                t = tokens[i]
                if t.type == "inline" and t.children is not None:
                    row.append(plain_inline(t.children))
                elif t.type in ("fence", "code_block"):
                    lines.append(t.content.strip())
                elif t.type in ("tr_close", "paragraph_close") and row:
                    lines.append(" | ".join(row))
                    row = []
                i += 1
            if row:
                lines.append(" | ".join(row))
            blocks.add("\n".join(line for line in lines if line), path.path)
            i += 1
        else:
            i += 1
    return blocks.extracted(title)


def plain_inline(children: list[Token]) -> str:
    """An inline token's text without its markup (links' and emphasis' text kept)."""
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts)
