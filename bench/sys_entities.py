"""The built-in entities on their test set (tests/data/sys_entities.jsonl): the share
of utterances whose expected values are all recognised and normalised right, per
entity and language, and the time one message takes (every entity of its family on).

    .venv/bin/python -m bench.sys_entities
"""

import json
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot_api.domain.entities import ANY, BUILTIN_ENTITIES
from bot_api.engine.builtin_entities import BuiltinRecognizer, free_text
from bot_api.engine.text import tokens

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "sys_entities.jsonl"
NOW = datetime(2026, 11, 25, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))
"""The set's reference moment: its relative dates ("tomorrow") are written against it."""


@dataclass(frozen=True)
class Case:
    language: str
    entity: str
    text: str
    expected: tuple[Any, ...]


def cases() -> list[Case]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    return [Case(r["language"], r["entity"], r["text"], tuple(r["expected"])) for r in rows]


def recognised(case: Case) -> list[Any]:
    """The values of the case's entity found in its text, as a story using only that
    entity would find them."""
    if case.entity == ANY:
        return [free_text(case.text, len(tokens(case.text))).value]
    recognizer = BuiltinRecognizer({case.entity}, case.language)
    return [m.value for m in recognizer.find(case.text, NOW) if m.entity == case.entity]


def shares() -> dict[tuple[str, str], tuple[int, int]]:
    """(entity, language) -> (right, total): right when every expected value is found."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for case in cases():
        found = recognised(case)
        counts[case.entity, case.language][0] += all(v in found for v in case.expected)
        counts[case.entity, case.language][1] += 1
    return {key: (right, total) for key, (right, total) in counts.items()}


def latency_ms(language: str) -> list[float]:
    """Milliseconds per message with every built-in entity on, over the set's texts."""
    recognizer = BuiltinRecognizer(BUILTIN_ENTITIES, language)
    texts = [c.text for c in cases() if c.language == language]
    recognizer.find(texts[0], NOW)  # the libraries load their language data once
    times = []
    for text in texts:
        start = time.perf_counter()
        recognizer.find(text, NOW)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    table = shares()
    languages = sorted({language for _, language in table})
    print("| entity | " + " | ".join(languages) + " |")
    print("|---|" + "---|" * len(languages))
    for entity in sorted({entity for entity, _ in table}):
        row = []
        for language in languages:
            right, total = table.get((entity, language), (0, 0))
            row.append(f"{right / total:.2f} ({right}/{total})" if total else "-")
        print(f"| {entity} | " + " | ".join(row) + " |")
    for language in languages:
        right = sum(r for (_, lang), (r, _) in table.items() if lang == language)
        total = sum(t for (_, lang), (_, t) in table.items() if lang == language)
        times = latency_ms(language)
        p50 = statistics.median(times)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(
            f"{language}: {right}/{total} = {right / total:.3f}; p50 {p50:.2f} ms, p95 {p95:.2f} ms"
        )


if __name__ == "__main__":
    main()
