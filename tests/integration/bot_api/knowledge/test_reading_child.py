"""Reading PDF, DOCX and HTML in the fresh child process: what each gives, and each
hostile file refused with its kind; the child's own failures (a signal, garbage, too
much output, CPU, the wall clock) answered by the parent."""

import subprocess
import sys

import pytest

from bot_api.knowledge.blocks import DocumentRefused
from bot_api.knowledge.reading import process, read_document
from bot_api.knowledge.reading.limits import CHILD_CPU_SECONDS, CHILD_MEMORY_BYTES
from support.knowledge_data import HANDBOOK_BYTES
from support.reading_documents import (
    CHINESE_PAGE,
    DOCX,
    NOT_CONTENT,
    SHOP_PAGE,
    pdf,
    pdf_bomb,
    staff_docx,
    zip_bomb,
)

PDF = "application/pdf"


async def refusal(content: bytes, media_type: str) -> DocumentRefused:
    with pytest.raises(DocumentRefused) as refused:
        await read_document(content, media_type)
    return refused.value


@pytest.fixture
def handbook() -> bytes:
    return HANDBOOK_BYTES


async def test_the_real_handbook_gives_its_13_pages_under_headings_by_font_size(
    handbook: bytes,
) -> None:
    read = await read_document(handbook, PDF)
    assert {b.page for b in read.blocks} == set(range(1, 14))
    assert read.title is None, "its metadata Title is empty"
    first = read.blocks[0]
    assert first.page == 1
    assert first.heading == ("Handbook: DeepAnnotation", "What is the DeepAnnotation Tool?")
    assert first.text.startswith("Many of the machine learning algorithms")
    setting_up = [b for b in read.blocks if b.heading[-1:] == ("Setting up the tool",)]
    assert setting_up[0].page == 3
    assert setting_up[0].heading == ("PART 1 - THE ADMIN\u2019S TASKS", "Setting up the tool")
    assert "click the following link" in setting_up[0].text


async def test_a_hand_written_pdf_keeps_its_title_pages_and_heading() -> None:
    content = pdf(
        [
            [(24, "Opening hours"), (12, "The shop opens at nine."), (12, "It closes at six.")],
            [(12, "Returns are free within thirty days of buying.")],
        ],
        "Shop handbook",
    )
    read = await read_document(content, PDF)
    assert read.title == "Shop handbook"
    assert [(b.page, b.heading, b.text) for b in read.blocks] == [
        (1, ("Opening hours",), "The shop opens at nine. It closes at six."),
        (2, ("Opening hours",), "Returns are free within thirty days of buying."),
    ]


async def test_a_docx_is_read_in_the_child() -> None:
    read = await read_document(staff_docx(), DOCX)
    assert read.title == "Staff handbook"
    assert [b.heading for b in read.blocks][:2] == [("Leave",), ("Leave", "Sick leave")]
    assert "1-5 | Full" in [b.text for b in read.blocks]


async def test_an_html_page_gives_its_content_without_nav_footer_or_script() -> None:
    read = await read_document(SHOP_PAGE, "text/html; charset=utf-8")
    assert read.title == "Opening hours"
    assert read.blocks[1].heading == ("Our shop", "Returns")
    text = " ".join(b.text for b in read.blocks)
    assert "thirty days" in text
    for dropped in NOT_CONTENT:
        assert dropped not in text


async def test_a_chinese_page_gives_its_text() -> None:
    read = await read_document(CHINESE_PAGE, "text/html")
    assert read.title == "营业时间"
    assert read.blocks[0].text.startswith("我们的商店每周一至周五")
    assert read.blocks[1].heading == ("我们的商店", "退货")


@pytest.mark.parametrize(
    ("content", "media_type", "kind"),
    [
        (zip_bomb(), DOCX, "too_large"),
        (
            b"<html><body>" + b"<div>" * 200_000 + b"deep" + b"</div>" * 200_000,
            "text/html",
            "too_large",
        ),
        (b"%PDF-1.7\n" + bytes(range(256)) * 400, PDF, "unreadable"),
        (pdf_bomb(), PDF, "unreadable"),
        (b"PK\x03\x04" + b"\x00" * 1000, DOCX, "unreadable"),
        (b"", PDF, "unreadable"),
        (b"%!PS-Adobe-3.0", "application/postscript", "unsupported"),
    ],
    ids=[
        "docx-zip-bomb",
        "nested-divs",
        "garbage-pdf",
        "pdf-bomb",
        "garbage-docx",
        "empty",
        "unknown-type",
    ],
)
async def test_a_hostile_file_is_refused_with_its_kind(
    content: bytes, media_type: str, kind: str
) -> None:
    assert (await refusal(content, media_type)).kind == kind


@pytest.mark.parametrize(
    ("program", "kind"),
    [
        ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "unreadable"),
        ("print('not json')", "unreadable"),
        ("import sys; sys.stdout.write('x' * (33 * 1024 * 1024))", "unreadable"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGXCPU)", "timed_out"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "unreadable"),
        ('print(\'{"refused": "too_large", "message": "memory"}\')', "too_large"),
    ],
    ids=["signal", "garbage", "too-much-output", "cpu", "killed", "memory"],
)
async def test_the_childs_failures_are_answered_by_their_kind(
    monkeypatch: pytest.MonkeyPatch, program: str, kind: str
) -> None:
    monkeypatch.setattr(process, "CHILD", ("-c", program))
    assert (await refusal(b"%PDF-1.4", PDF)).kind == kind


async def test_a_child_past_the_wall_clock_is_killed_and_timed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process, "CHILD", ("-c", "import time; time.sleep(600)"))
    monkeypatch.setattr(process, "CHILD_WALL_SECONDS", 0.0)
    assert (await refusal(b"%PDF-1.4", PDF)).kind == "timed_out"


def test_the_child_is_bounded_and_imports_only_its_reader() -> None:
    program = (
        "import resource, sys\n"
        "from bot_api.knowledge.reading import child\n"
        "child.bound()\n"
        "child.reader(sys.argv[1])\n"
        "print(*(resource.getrlimit(r)[0] for r in (resource.RLIMIT_AS, resource.RLIMIT_CPU)))\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", program, PDF], capture_output=True, text=True, check=True
    )
    limits, modules = ran.stdout.splitlines()
    assert limits == f"{CHILD_MEMORY_BYTES} {CHILD_CPU_SECONDS}"
    imported = set(modules.split())
    assert "pypdfium2" in imported
    assert not imported & {"aiohttp", "asyncio", "pymongo", "lxml", "docx", "justext"}
