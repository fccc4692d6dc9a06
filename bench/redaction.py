"""Redaction (bot_api/domain/redaction.py) on its written forms (tests/data/
redaction_forms.jsonl) and on HWU64's test messages (../shared/nlu): recall per kind,
the messages changed, and what redacting one message costs; written to
docs/benchmarks.md.

    .venv/bin/python -m bench.redaction
"""

import json
import re
import statistics
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from bench.report import write_section
from bot_api.domain.redaction import phone_region, redact

FORMS = Path(__file__).resolve().parents[1] / "tests" / "data" / "redaction_forms.jsonl"
HWU64 = next(
    folder / "shared" / "nlu" / "hwu64_kfold1.json"
    for folder in Path(__file__).resolve().parents
    if (folder / "shared" / "nlu").is_dir()
)
PLACEHOLDER = re.compile(r"\[(?:email|phone|card|iban)\]")
KINDS = ("email", "phone", "card", "iban")
RUNS = 5


def forms() -> list[dict[str, Any]]:
    """Each form: `kind` (one of `KINDS`, or `none` for what only looks personal),
    the story's `language`, the message's `text` and the `secret` written in it."""
    return [json.loads(line) for line in FORMS.read_text(encoding="utf-8").splitlines()]


def hwu64_test_messages() -> list[str]:
    return [m["text"] for m in json.loads(HWU64.read_text(encoding="utf-8"))["test"]]


def leaks(form: dict[str, Any], stored: str) -> bool:
    """What was stored still holds the form: no placeholder, or (numbers) any digit left
    (the messages around the forms hold none; an IBAN's letters are not counted), or
    (e-mail) the address's user name."""
    if PLACEHOLDER.search(stored) is None:
        return True
    plain = unicodedata.normalize("NFKC", stored)
    if form["kind"] != "email":
        return re.search(r"\d", plain) is not None
    secret = unicodedata.normalize("NFKC", form["secret"]).removeprefix("mailto:")
    user = re.split(r"[ @(\[{<]", secret)[0]
    return re.search(rf"(?<!\w){re.escape(user)}(?!\w)", plain, re.IGNORECASE) is not None


def missed(personal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in personal if leaks(f, redact(f["text"], phone_region(f["language"])))]


def microseconds(texts: list[str], region: str | None) -> tuple[float, float]:
    """Median and p99 over `texts` of one message's redaction, each the fastest of
    `RUNS` (the machine is shared: a slower run measures the neighbours)."""
    costs = []
    for text in texts:
        runs = []
        for _ in range(RUNS):
            started = time.perf_counter_ns()
            redact(text, region)
            runs.append((time.perf_counter_ns() - started) / 1000)
        costs.append(min(runs))
    costs.sort()
    return statistics.median(costs), costs[int(len(costs) * 0.99)]


def shown(microseconds: float) -> str:
    return f"{microseconds:.1f} µs" if microseconds < 1000 else f"{microseconds / 1000:.0f} ms"


def table() -> str:
    personal = [f for f in forms() if f["kind"] != "none"]
    left = Counter(f["kind"] for f in missed(personal))
    counts = Counter(f["kind"] for f in personal)
    test = hwu64_test_messages()
    us = phone_region("english")
    changed = [t for t in test if redact(t, us) != t]
    long = "I'll be at the office (room B) at nine. " * 51
    hostile = ("0044 " * 410)[:2048]
    lines = [
        f"Recall on {len(personal)} written forms (tests/data/redaction_forms.jsonl), and",
        f"HWU64's {len(test):,} test messages read as an English story's (US numbers).",
        "",
        "| kind | forms | recall |",
        "|---|---|---|",
        *(f"| {kind} | {counts[kind]} | {1 - left[kind] / counts[kind]:.3f} |" for kind in KINDS),
        f"| all | {len(personal)} | {1 - sum(left.values()) / len(personal):.3f} |",
        "",
        f"HWU64 test messages changed: {len(changed)} (each an e-mail address, "
        "tests/unit/bot_api/domain/test_redaction_recall.py).",
        "",
        "One message's redaction, the fastest of 5 runs each:",
        "",
        "| messages | median | p99 |",
        "|---|---|---|",
    ]
    for name, texts in (
        ("HWU64 test", test),
        ("the written forms", [f["text"] for f in personal]),
        (f"{len(long):,} characters with `at` and brackets", [long]),
        (f"{len(hostile):,} characters of `0044 ` (hostile)", [hostile]),
    ):
        median, p99 = microseconds(texts, us)
        lines.append(f"| {name} | {shown(median)} | {shown(p99)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    write_section("redaction", "Redaction (make bench)", table())
