"""Writing a section of docs/benchmarks.md, keeping the other sections as they are."""

import platform
import re
from datetime import UTC, datetime
from pathlib import Path

REPORT = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
HEADER = """# Benchmarks

Written by `make bench` and `make eval`; each section says when and where it ran.
This machine is shared and noisy: figures are medians of several runs, and ratios
compare numbers measured side by side in one run.
"""


def machine() -> str:
    cores = len(__import__("os").sched_getaffinity(0))
    with open("/proc/meminfo") as meminfo:
        memory_kib = int(meminfo.readline().split()[1])
    return (
        f"{platform.processor() or platform.machine()}, {cores} cores, "
        f"{memory_kib / 1024 / 1024:.0f} GiB, Python {platform.python_version()}"
    )


def write_section(key: str, title: str, body: str) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = (
        f"<!-- {key}:start -->\n## {title}\n\n_Run {stamp} on {machine()}._\n\n"
        f"{body}\n<!-- {key}:end -->"
    )
    text = REPORT.read_text() if REPORT.exists() else HEADER
    pattern = re.compile(rf"<!-- {key}:start -->.*?<!-- {key}:end -->", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text)
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    REPORT.write_text(text)
