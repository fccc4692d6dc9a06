# ruff: noqa: RUF001 (Chinese punctuation is meant)
"""Small real documents built for the reading tests: a DOCX by python-docx, a PDF written
by hand, HTML pages with the parts that are not content."""

import io
import zipfile
import zlib

import docx

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def staff_docx() -> bytes:
    """A DOCX titled "Staff handbook": Leave > Sick leave (with a table), then Pay."""
    document = docx.Document()
    document.core_properties.title = "Staff handbook"
    document.add_heading("Leave", 1)
    document.add_paragraph("Everyone has 25 days of leave a year.")
    document.add_heading("Sick leave", 2)
    document.add_paragraph("Call your manager before nine.")
    table = document.add_table(rows=2, cols=2)
    for (row, col), text in {(0, 0): "Days", (0, 1): "Pay", (1, 0): "1-5", (1, 1): "Full"}.items():
        table.cell(row, col).text = text
    document.add_heading("Pay", 1)
    document.add_paragraph("Salaries are paid on the last day of the month.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def zip_bomb() -> bytes:
    """A ZIP with the parts of a DOCX's name and one deflated entry of 200 MB of zeros
    (some 200 KB), written in pieces so the test never holds the 200 MB."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as entry:
            zeros = bytes(1024 * 1024)
            for _ in range(200):
                entry.write(zeros)
    return out.getvalue()


def pdf(pages: list[list[tuple[int, str]]], title: str) -> bytes:
    """A minimal valid PDF written by hand: each page's lines as (font size, text) in
    Helvetica from the top, the Info dictionary's Title, the xref table's offsets right."""
    count = len(pages)
    font = 3 + 2 * count
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (3 + 2 * i) for i in range(count))
        + b"] /Count %d >>" % count,
    ]
    for i, lines in enumerate(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (font, 4 + 2 * i)
        )
        stream = b"".join(
            b"BT /F1 %d Tf 72 %d Td (%s) Tj ET\n" % (size, 720 - 30 * n, text.encode("latin-1"))
            for n, (size, text) in enumerate(lines)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(b"<< /Title (%s) >>" % title.encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\n" % (len(objects) + 1, len(objects))
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


SHOP_PAGE = b"""<!doctype html><html lang="en"><head><title>Opening hours</title>
<style>.menu { color: red }</style><script>var tracking = "secret-script";</script></head>
<body><header><a href="/">Home</a> <a href="/about">About the company</a></header>
<nav><ul><li><a href="/a">Products</a></li><li><a href="/b">Contact us</a></li></ul></nav>
<main><h1>Our shop</h1><p>The shop on the main street is open from nine in the morning
until six in the evening on every weekday, and it is closed on Sundays and holidays.</p>
<h2>Returns</h2><p>You can return an item within thirty days of buying it, as long as you
have the receipt and the item is in the condition in which it was sold to you.</p></main>
<aside>Sponsored: buy the things from our friends at the other shop in the town today</aside>
<form>Subscribe to the newsletter for the offers of every week <input name=email></form>
<footer>Copyright 2026 The Shop. All rights reserved. Privacy policy and terms of use.</footer>
</body></html>"""
"""A page whose content is two paragraphs under "Our shop" and "Our shop > Returns"."""

NOT_CONTENT = ("Home", "Products", "Contact us", "secret", "Sponsored", "Subscribe", "Copyright")

CHINESE_PAGE = """<html lang="zh-CN"><head><title>营业时间</title></head><body>
<nav><a href="/">首页</a> <a href="/c">联系我们</a></nav><h1>我们的商店</h1>
<p>我们的商店每周一至周五上午九点到下午六点营业，周日和法定节假日休息。</p><h2>退货</h2>
<p>您可以在购买后三十天内凭收据退回商品，商品必须保持出售时的状态。</p>
<footer>版权所有 2026</footer></body></html>""".encode()


def pdf_bomb(megabytes: int = 100) -> bytes:
    """A valid one-page PDF whose content stream inflates to `megabytes` of drawing
    operators (half a megabyte on disk)."""
    stream = zlib.compress(b"0 0 m 1 1 l S\n" * (megabytes * 1024 * 1024 // 14), 1)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
