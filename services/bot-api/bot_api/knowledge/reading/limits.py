"""The bounds of reading a document, each with its reason. A file beyond one is refused
(`DocumentRefused`), never read in part: an answer cited from half a document would be
wrong without saying so."""

MAX_FILE_BYTES = 20 * 1024 * 1024
"""20 MB: a long handbook as a PDF with pictures is a few MB (the real 13-page handbook
docs/knowledge.md reads is 0.96 MB); beyond, the file is mostly pictures, which give no text,
and the bytes are held in memory twice (the request and the child's stdin)."""

MAX_HTML_BYTES = 5 * 1024 * 1024
"""5 MB before parsing: a page beyond is an export or a dump, not an article. A 5 MB page
of paragraphs and headings takes 1.9 s of the child's CPU (lxml's parse, jusText's
paragraphs; refused there for its 2.1 M characters) and 100 MB of its memory, within
CHILD_CPU_SECONDS; before html_page.py cached jusText's paragraph text it took over 10 s."""

MAX_PDF_PAGES = 500
"""500 pages: a hand-written 500-page PDF of 40 lines a page (1.44 M characters) reads
in 0.58 s of the child's CPU, the real 13-page handbook in 0.05-0.08 s of pdfium; the
bound keeps a long PDF of dense pages within CHILD_CPU_SECONDS and its text near
MAX_CHARACTERS."""

MAX_CHARACTERS = 2_000_000
"""2,000,000 characters of text (some 300,000 words, four long books): the passages,
their BM25 index and their vectors grow with the text; a document beyond is a corpus."""

MAX_HEADING_CHARACTERS = 200
"""A heading kept is cut to 200 characters: each block repeats its heading path, so an
unbounded heading (a PDF line in a large font, a styled DOCX paragraph) would multiply the
child's answer."""

MAX_HEADING_DEPTH = 9
"""A heading path is at most 9 deep (DOCX has `Heading 1` to `Heading 9`; HTML and
Markdown have 6 levels)."""

MAX_HTML_DEPTH = 200
"""200 nested elements: real pages nest some 30 deep; libxml2 stops building the tree at
256 and silently drops what is deeper (200,000 nested `<div>`s give an empty page), so a
tree reaching 200 is refused instead of read in part."""

MAX_DOCX_ENTRIES = 1_000
"""A DOCX (a ZIP) of at most 1,000 entries: a Word document has some 10-30 (parts, media,
rels); thousands are a ZIP made to exhaust the reader."""

MAX_DOCX_UNCOMPRESSED_BYTES = 100 * 1024 * 1024
"""100 MB uncompressed in all, read from the ZIP's directory before python-docx opens it:
a 200 MB entry of zeros deflates to 200 KB (a zip bomb)."""

MAX_DOCX_RATIO = 100
"""An entry may expand at most 100 times (entries over 1 MB uncompressed): XML deflates
some 5-20 times, a run of zeros 1,000 times."""

MAX_DOCX_PARAGRAPHS = 200_000
"""200,000 paragraphs and table rows: a 1,000-page document has some 20,000."""

CHILD_MEMORY_BYTES = 1024 * 1024 * 1024
"""1 GiB of address space for the child (RLIMIT_AS): reading the real handbook peaks at
49 MB of address space (VmPeak), a DOCX or an HTML page at 39 MB, a 5 MB HTML page at
106 MB; a hostile file that makes a C library allocate beyond fails there (MemoryError,
`too_large`, or the child dies: `unreadable`) instead of in the service."""

CHILD_CPU_SECONDS = 10
"""10 s of CPU for the child (RLIMIT_CPU, SIGXCPU past it: `timed_out`): reading the real
13-page handbook takes 0.27 s in the child, its start included (0.23 s user, 25 MB
resident), a 5 MB HTML page 1.9 s."""

CHILD_WALL_SECONDS = 20.0
"""20 s of wall time for the child, after which it is killed (`timed_out`): twice the CPU
bound, for a child waiting on the 2-core machine's other work."""

MAX_CHILD_OUTPUT_BYTES = 32 * 1024 * 1024
"""32 MB of the child's JSON answer read at most: 2,000,000 characters as UTF-8 (up to
4 bytes each) plus the headings repeated on each block; beyond, the child misbehaves."""

MAX_CHILDREN = 2
"""At most 2 children read at once in a process: the machine has 2 cores, and each child
may take 1 GiB."""
