# ruff: noqa: RUF001 (the letters of other alphabets are meant)
"""Reading documents in this process: plain text and Markdown through `read_document`,
and the readers the child runs (HTML, PDF lines, DOCX and its ZIP check) called directly;
the bounds each refuses with its kind."""

import asyncio
import io
import zipfile

import pytest

from bot_api.knowledge.blocks import Block, DocumentRefused
from bot_api.knowledge.reading import DOCUMENT_TYPES, child, process, read_document
from bot_api.knowledge.reading.html_page import read_html
from bot_api.knowledge.reading.limits import (
    MAX_CHARACTERS,
    MAX_CHILDREN,
    MAX_DOCX_ENTRIES,
    MAX_HTML_BYTES,
    MAX_PDF_PAGES,
)
from bot_api.knowledge.reading.pdf import pdf_blocks, read_pdf
from bot_api.knowledge.reading.word import check_zip, read_docx
from support.reading_documents import (
    CHINESE_PAGE,
    DOCX,
    NOT_CONTENT,
    SHOP_PAGE,
    pdf,
    staff_docx,
    zip_bomb,
)

MARKDOWN = b"""# Staff handbook

Welcome to the *handbook*, read it with [care](https://example.com).

## Leave

Everyone has 25 days.

- ask first
- write it down

### Sick leave

| Days | Pay |
|------|-----|
| 1-5  | Full |

## Pay

```
salary = days * rate
```

# Appendix

Last words.
"""


async def refusal(content: bytes, media_type: str) -> str:
    with pytest.raises(DocumentRefused) as refused:
        await read_document(content, media_type)
    return refused.value.kind


async def test_plain_text_is_its_paragraphs_split_on_blank_lines() -> None:
    text = b"First paragraph,\non two lines.\n\n  \nSecond one.\r\n\r\nThird.\n"
    read = await read_document(text, "text/plain; charset=utf-8")
    assert read.blocks == (
        Block("First paragraph,\non two lines."),
        Block("Second one."),
        Block("Third."),
    )
    assert read.title is None


async def test_plain_text_not_in_utf8_is_decoded_by_its_guessed_encoding() -> None:
    french = (
        "Les élèves étudient à l'école où ça coûte très cher. Déjà l'été dernier, les "
        "enseignants ont demandé que la cantine propose des repas équilibrés."
    )
    russian = "Привет, как дела? Сегодня хорошая погода, и мы идём гулять в парк у реки."
    for text, encoding in ((french, "cp1252"), (russian, "cp1251"), (french, "utf-16")):
        read = await read_document(text.encode(encoding), "text/plain")
        assert read.blocks == (Block(text),), encoding


async def test_markdown_headings_nest_and_the_first_h1_is_the_title() -> None:
    read = await read_document(MARKDOWN, "text/markdown")
    assert read.title == "Staff handbook"
    assert [(b.heading, b.text) for b in read.blocks] == [
        (("Staff handbook",), "Welcome to the handbook, read it with care."),
        (("Staff handbook", "Leave"), "Everyone has 25 days."),
        (("Staff handbook", "Leave"), "ask first\nwrite it down"),
        (("Staff handbook", "Leave", "Sick leave"), "Days | Pay\n1-5 | Full"),
        (("Staff handbook", "Pay"), "salary = days * rate"),
        (("Appendix",), "Last words."),
    ]


async def test_an_unknown_media_type_is_unsupported() -> None:
    assert await refusal(b"%!PS-Adobe-3.0", "application/postscript") == "unsupported"
    assert "application/postscript" not in DOCUMENT_TYPES


async def test_an_empty_file_is_unreadable_whatever_its_type() -> None:
    for media_type in DOCUMENT_TYPES:
        assert await refusal(b" \n", media_type) == "unreadable", media_type


async def test_text_beyond_the_characters_bound_is_too_large() -> None:
    paragraph = b"word " * 1000 + b"\n\n"
    assert len(paragraph.strip()) * (MAX_CHARACTERS // 4000) > MAX_CHARACTERS
    text = paragraph * (MAX_CHARACTERS // 4000)
    assert await refusal(text, "text/plain") == "too_large"
    assert len((await read_document(text[: len(text) // 2], "text/plain")).blocks) > 0


async def test_an_html_page_beyond_its_bytes_is_refused_before_any_child() -> None:
    page = b"<html><body><p>" + b"a" * (50 * 1024 * 1024) + b"</p></body></html>"
    assert await refusal(page, "text/html") == "too_large"
    with pytest.raises(DocumentRefused) as refused:
        read_html(b"<p>" + b"a" * MAX_HTML_BYTES)
    assert refused.value.kind == "too_large"


def test_html_keeps_the_main_content_under_its_headings_and_the_title() -> None:
    read = read_html(SHOP_PAGE)
    assert read.title == "Opening hours"
    assert [b.heading for b in read.blocks] == [("Our shop",), ("Our shop", "Returns")]
    assert read.blocks[0].text.startswith("The shop on the main street is open")
    text = " ".join(b.text for b in read.blocks)
    for dropped in NOT_CONTENT:
        assert dropped not in text


def test_an_html_page_declaring_no_charset_is_decoded_by_its_guessed_encoding() -> None:
    french = (
        "Les élèves étudient à l'école où ça coûte très cher. Déjà l'été dernier, les "
        "enseignants ont demandé que la cantine propose des repas équilibrés à un prix "
        "raisonnable pour toutes les familles du quartier, même les plus modestes."
    )
    page = f"<html lang=fr><body><p>{french}</p></body></html>".encode("cp1252")
    assert [b.text for b in read_html(page).blocks] == [french]
    declared = b'<html><head><meta charset="iso-8859-2"></head><body><p>\xe8</p></body></html>'
    assert "č" in read_html(declared.replace(b"<p>", b"<p>" + b"x " * 60)).blocks[0].text


def test_a_chinese_page_has_no_stoplist_and_still_gives_its_text() -> None:
    for page in (CHINESE_PAGE, CHINESE_PAGE.replace(b' lang="zh-CN"', b"")):
        read = read_html(page)
        assert read.title == "营业时间"
        assert [b.heading for b in read.blocks] == [("我们的商店",), ("我们的商店", "退货")]
        assert read.blocks[1].text.startswith("您可以在购买后三十天内")
        assert "首页" not in " ".join(b.text for b in read.blocks)


def test_html_nested_deeper_than_the_bound_is_too_large() -> None:
    page = b"<html><body>" + b"<div>" * 200_000 + b"deep" + b"</div>" * 200_000
    with pytest.raises(DocumentRefused) as refused:
        read_html(page)
    assert refused.value.kind == "too_large"


def test_pdf_lines_in_a_larger_font_are_headings_a_larger_one_outside_a_smaller() -> None:
    pages = [
        [("Part one", 26.7), ("Setting up", 21.3), ("Click the link to begin.", 14.7)],
        [("3", 14.7), ("Then log in.", 14.7), ("Part two", 26.7), ("Labelling.", 14.7)],
    ]
    read = pdf_blocks(pages, "Handbook")
    assert read.title == "Handbook"
    assert read.blocks == (
        Block("Click the link to begin.", ("Part one", "Setting up"), 1),
        Block("Then log in.", ("Part one", "Setting up"), 2),
        Block("Labelling.", ("Part two",), 2),
    )


def test_a_pdf_of_more_pages_than_the_bound_is_too_large() -> None:
    page = [(12, "A line.")]
    assert len(read_pdf(pdf([page] * MAX_PDF_PAGES, "Long")).blocks) == MAX_PDF_PAGES
    with pytest.raises(DocumentRefused) as refused:
        read_pdf(pdf([page] * (MAX_PDF_PAGES + 1), "Too long"))
    assert refused.value.kind == "too_large"


def test_a_zip_of_more_entries_than_a_docx_has_is_too_large() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for n in range(MAX_DOCX_ENTRIES + 1):
            archive.writestr(f"part{n}.xml", "<x/>")
    with pytest.raises(DocumentRefused) as refused:
        check_zip(out.getvalue())
    assert refused.value.kind == "too_large"


def test_docx_headings_build_the_path_and_table_rows_are_blocks() -> None:
    read = read_docx(staff_docx())
    assert read.title == "Staff handbook"
    assert [(b.heading, b.text) for b in read.blocks] == [
        (("Leave",), "Everyone has 25 days of leave a year."),
        (("Leave", "Sick leave"), "Call your manager before nine."),
        (("Leave", "Sick leave"), "Days | Pay"),
        (("Leave", "Sick leave"), "1-5 | Full"),
        (("Pay",), "Salaries are paid on the last day of the month."),
    ]


def test_a_docx_zip_bomb_is_refused_from_the_zip_directory() -> None:
    check_zip(staff_docx())
    with pytest.raises(DocumentRefused) as refused:
        check_zip(zip_bomb())
    assert refused.value.kind == "too_large"
    with pytest.raises(DocumentRefused) as refused:
        read_docx(b"PK\x03\x04 not a zip at all")
    assert refused.value.kind == "unreadable"


def test_the_child_answers_memory_as_too_large_and_a_library_error_as_unreadable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def exhausted(content: bytes) -> None:
        raise MemoryError

    monkeypatch.setattr(child, "reader", lambda media_type: exhausted)
    assert child.answer(DOCX, b"x")["refused"] == "too_large"
    monkeypatch.setattr(child, "reader", lambda media_type: lambda content: 1 / 0)
    assert child.answer(DOCX, b"x")["refused"] == "unreadable"


@pytest.mark.parametrize(
    "output",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'"refused"',
        b'{"refused": "exploded", "message": "x"}',
        b'{"title": null, "blocks": [{"text": 1, "heading": [], "page": null}]}',
        b'{"title": null, "blocks": [{"text": "a", "heading": [], "page": "1"}]}',
        b'{"title": 3, "blocks": []}',
    ],
)
def test_an_answer_of_the_child_not_as_agreed_is_unreadable(output: bytes) -> None:
    with pytest.raises(DocumentRefused) as refused:
        process.parse_answer(output)
    assert refused.value.kind == "unreadable"


def test_the_childs_answer_becomes_blocks_and_its_refusal_a_refusal() -> None:
    answer = b'{"title": "T", "blocks": [{"text": "a", "heading": ["H"], "page": 2}]}'
    assert process.parse_answer(answer).blocks == (Block("a", ("H",), 2),)
    with pytest.raises(DocumentRefused) as refused:
        process.parse_answer(b'{"refused": "timed_out", "message": "slow"}')
    assert (refused.value.kind, refused.value.message) == ("timed_out", "slow")


async def test_at_most_max_children_read_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    running: list[str] = []
    most = 0
    go = asyncio.Event()

    async def held_child(content: bytes, media_type: str) -> object:
        nonlocal most
        running.append(media_type)
        most = max(most, len(running))
        await go.wait()
        running.remove(media_type)
        return None

    monkeypatch.setattr(process, "run_child", held_child)
    reads = [asyncio.create_task(process.read_in_child(b"x", str(n))) for n in range(5)]
    for _ in range(10):
        await asyncio.sleep(0)
    assert len(running) == MAX_CHILDREN
    go.set()
    await asyncio.gather(*reads)
    assert most == MAX_CHILDREN
    assert running == []
