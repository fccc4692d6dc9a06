"""HTML, read in the child process (lxml is C): the page's main content by jusText.

Kept: the paragraphs jusText does not call boilerplate, under the path of the h1-h6
headings it keeps (the level from the paragraph's DOM path); `<title>` as the title.
Dropped before jusText classifies anything: `<head>`, `<nav>`, `<header>`, `<footer>`,
`<aside>`, `<form>` (with its fields), `<script>`, `<style>`, comments and embedded objects.
The stoplist is the page's `lang`; a language jusText has no stoplist for (Chinese,
Japanese, Thai, ...) is read with no stoplist and lower lengths (a Chinese character is
about a word), and a page with no `lang` is read as English, then, if that keeps nothing,
as a language with no stoplist. A page is decoded by its `<meta charset>`, else as UTF-8,
else by charset_normalizer's guess (decoding.py)."""

import re
from functools import cached_property
from typing import Any

import justext  # type: ignore[import-untyped]
import lxml.etree  # type: ignore[import-untyped]
from lxml.html.clean import Cleaner  # type: ignore[import-untyped]

from bot_api.knowledge.blocks import DocumentRefused, Extracted
from bot_api.knowledge.reading.collect import Blocks, HeadingPath
from bot_api.knowledge.reading.decoding import decode
from bot_api.knowledge.reading.limits import MAX_HTML_BYTES, MAX_HTML_DEPTH

LANGUAGES = {
    "ar": "Arabic", "bg": "Bulgarian", "ca": "Catalan", "cs": "Czech", "cy": "Welsh",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish",
    "et": "Estonian", "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fr": "French",
    "ga": "Irish", "gl": "Galician", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
    "hu": "Hungarian", "id": "Indonesian", "is": "Icelandic", "it": "Italian",
    "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "ms": "Malay", "nb": "Norwegian_Bokmal",
    "nl": "Dutch", "nn": "Norwegian_Nynorsk", "no": "Norwegian_Bokmal", "pl": "Polish",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian",
    "sr": "Serbian", "sv": "Swedish", "sw": "Swahili", "tl": "Tagalog", "tr": "Turkish",
    "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese",
}  # fmt: skip
"""ISO 639-1 codes of a page's `lang` to jusText's stoplist names."""

NO_STOPLIST: dict[str, Any] = {
    "stoplist": frozenset(),
    "stopwords_low": 0.0,
    "stopwords_high": 0.0,
    "length_low": 10,
    "length_high": 20,
}
"""jusText's parameters for a language with no stoplist: with no stopwords to count, a
paragraph is judged by its length and its links alone (20 Chinese characters are some 12
words, a sentence)."""

SHORT_PAGE: dict[str, Any] = {"length_low": 30, "length_high": 100}
"""jusText's lengths for a page where its own (70 and 200 characters) keep nothing: it
keeps a near-good paragraph only next to a good one, of over 200 characters, which a
short FAQ page may not have; the page's nav, header, footer and aside are gone already."""

DROPPED_TAGS = ("head", "nav", "header", "footer", "aside", "form", "noscript", "template")
HEADING_LEVEL = re.compile(r"\bh([1-6])\b")


class Paragraph(justext.paragraph.Paragraph):  # type: ignore[misc]
    """jusText's paragraph with its text computed once: jusText's `text` joins and
    normalises the paragraph's text nodes (a regex callback per run of spaces) at each of
    its some ten reads, 4.2 s of a 1 MB page's 5.2 s before; its text nodes no longer
    change once the paragraphs are made."""

    @cached_property
    def text(self) -> str:
        return str(super().text)


class ParagraphMaker(justext.core.ParagraphMaker):  # type: ignore[misc]
    """jusText's paragraph maker, testing the paragraph at hand by `is not None`: its
    `if self.paragraph` takes the paragraph's length, so its whole text again, at each
    element (1.2 s of a 2 MB page's 2.9 s)."""

    paragraph: Any
    paragraphs: list[Any]

    def _start_new_pragraph(self) -> None:
        if self.paragraph is not None and self.paragraph.contains_text():
            self.paragraphs.append(self.paragraph)
        self.paragraph = justext.paragraph.Paragraph(self.path)


class Page:
    """What the preprocessing saw of the page before jusText dropped its `<head>`."""

    def __init__(self) -> None:
        self.title: str | None = None
        self.lang: str | None = None

    def preprocess(self, dom: Any) -> Any:
        """jusText's preprocessor: the depth checked, title and lang noted, the page's
        parts that are never content removed."""
        depth = 0
        for event, _ in lxml.etree.iterwalk(dom, events=("start", "end")):
            depth += 1 if event == "start" else -1
            if depth > MAX_HTML_DEPTH:
                raise DocumentRefused(
                    "too_large", f"the page nests elements more than {MAX_HTML_DEPTH} deep"
                )
        titles = dom.xpath("//title")
        if titles:
            self.title = " ".join(titles[0].text_content().split()) or None
        self.lang = dom.get("lang") or dom.get("{http://www.w3.org/XML/1998/namespace}lang")
        cleaner = Cleaner(
            scripts=True,
            javascript=False,
            comments=True,
            style=True,
            embedded=True,
            forms=True,
            meta=False,
            links=False,
            page_structure=False,
            processing_instructions=False,
            remove_unknown_tags=False,
            safe_attrs_only=False,
            annoying_tags=False,
            frames=False,
            kill_tags=DROPPED_TAGS,
        )
        return cleaner.clean_html(dom)


def stoplist_name(lang: str | None) -> str | None:
    """The stoplist of a `lang` attribute (`en-GB` → English), None for a language
    jusText has none for."""
    if not lang:
        return None
    return LANGUAGES.get(lang.strip().lower().replace("_", "-").split("-")[0])


def read_html(content: bytes) -> Extracted:
    """An HTML page's main content; beyond MAX_HTML_BYTES it is not parsed (`too_large`).
    jusText's own steps, so that the page is parsed once and classified again with
    another stoplist when its language asks."""
    if len(content) > MAX_HTML_BYTES:
        raise DocumentRefused("too_large", f"an HTML page may have {MAX_HTML_BYTES:,} bytes")
    page = Page()
    try:
        if not justext.core.CHARSET_META_TAG_PATTERN.search(content):
            content = decode(content).encode("utf-8")
        dom = page.preprocess(justext.core.html_to_dom(content))
    except (lxml.etree.ParserError, justext.core.JustextError) as e:
        raise DocumentRefused("unreadable", f"the page is not HTML: {e}") from e
    paragraphs = ParagraphMaker.make_paragraphs(dom)
    for paragraph in paragraphs:
        paragraph.__class__ = Paragraph
    name = stoplist_name(page.lang) if page.lang else "English"
    attempts = [NO_STOPLIST]
    if name:
        stoplist = {"stoplist": justext.get_stoplist(name)}
        attempts = [stoplist, stoplist | SHORT_PAGE] + ([] if page.lang else attempts)
    for options in attempts:
        classify(paragraphs, options)
        if not all(p.is_boilerplate for p in paragraphs):
            break
    return page_blocks(paragraphs, page.title)


def classify(paragraphs: list[Any], options: dict[str, Any]) -> None:
    """jusText's two passes over the paragraphs (each pass sets every paragraph's class)."""
    justext.core.classify_paragraphs(paragraphs, **options)
    justext.core.revise_paragraph_classification(paragraphs)


def page_blocks(paragraphs: list[Any], title: str | None) -> Extracted:
    """The kept paragraphs as blocks; a kept heading is a step of the path, not a block."""
    blocks = Blocks()
    path = HeadingPath()
    for paragraph in paragraphs:
        if paragraph.is_boilerplate:
            continue
        levels = HEADING_LEVEL.findall(paragraph.dom_path)
        if paragraph.is_heading and levels:
            path.enter(int(levels[-1]), paragraph.text)
        else:
            blocks.add(paragraph.text, path.path)
    return blocks.extracted(title)
