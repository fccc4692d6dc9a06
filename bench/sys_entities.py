"""The built-in entities on their test set (tests/data/sys_entities.jsonl): the share
of utterances whose expected values are all recognised and normalised right, per
entity and language, and the time one message takes; written to docs/benchmarks.md.

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

from bench.matching import build, turn_seconds
from bench.report import write_section
from bot_api.domain.entities import ANY, BUILTIN_ENTITIES, DATE_TIME, NUMBER
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


def latency_ms(language: str) -> tuple[float, list[float]]:
    """Milliseconds to compile a recogniser for the language and read its first message
    (the libraries load its data once a process: the story cache does it as it compiles
    the story), then per message with every built-in entity on, over the set's texts."""
    texts = [c.text for c in cases() if c.language == language]
    start = time.perf_counter()
    recognizer = BuiltinRecognizer(BUILTIN_ENTITIES, language)  # loads the language's data
    recognizer.find(texts[0], NOW)
    first = (time.perf_counter() - start) * 1000
    times = []
    for text in texts:
        start = time.perf_counter()
        recognizer.find(text, NOW)
        times.append((time.perf_counter() - start) * 1000)
    return first, times


def turn_ms(entities: tuple[str, ...]) -> float:
    """p50 milliseconds of a whole engine turn over the English texts of the set, on a
    small booking story whose one interaction asks for `entities`."""
    slots = " ".join(f"{{{{{entity}:p{n}}}}}" for n, entity in enumerate(entities))
    parameters = [{"alias": f"p{n}", "entity": e, "prompts": []} for n, e in enumerate(entities)]
    story = build(
        [
            {"name": "Book", "userSays": [f"book a table {slots}"], "parameters": parameters},
            {"name": "Hours", "userSays": ["when are you open"]},
        ]
    )
    texts = [c.text for c in cases() if c.language == "english"] * 5
    turn_seconds(story, texts[:1])
    return statistics.median(turn_seconds(story, texts)) * 1000


def main() -> None:
    languages = sorted({c.language for c in cases()})
    latencies = {language: latency_ms(language) for language in languages}  # cold first
    table = shares()
    lines = [
        "The built-in entities (docs/entities.md) on tests/data/sys_entities.jsonl: the",
        "share of utterances whose expected values are all recognised and normalised",
        "right (goal 0.95), then the time a message takes with every built-in entity on.",
        "",
        "| entity | " + " | ".join(languages) + " |",
        "|---|" + "---|" * len(languages),
    ]
    for entity in sorted({entity for entity, _ in table}):
        row = []
        for language in languages:
            right, total = table.get((entity, language), (0, 0))
            row.append(f"{right / total:.2f} ({right}/{total})" if total else "-")
        lines.append(f"| {entity} | " + " | ".join(row) + " |")
    lines += [
        "",
        "| language | right | load + first message | then p50 | p95 |",
        "|---|---|---|---|---|",
    ]
    for language in languages:
        right = sum(r for (_, lang), (r, _) in table.items() if lang == language)
        total = sum(t for (_, lang), (_, t) in table.items() if lang == language)
        first, times = latencies[language]
        p50, p95 = statistics.median(times), statistics.quantiles(times, n=20)[-1]
        lines.append(
            f"| {language} | {right / total:.3f} ({right}/{total}) | {first:.0f} ms "
            f"| {p50:.2f} ms | {p95:.2f} ms |"
        )
    right = sum(r for r, _ in table.values())
    total = sum(t for _, t in table.values())
    lines.append(f"| all | {right / total:.3f} ({right}/{total}) | | | |")
    kinds = {
        "none": (),
        "sys.number": (NUMBER,),
        "sys.date-time": (DATE_TIME,),
        "all twelve": tuple(sorted(BUILTIN_ENTITIES)),
    }
    lines += ["", "A whole engine turn (`respond`, p50) on a small English story whose interaction"]
    lines += ["asks for:", "", "| built-in entities | turn p50 |", "|---|---|"]
    lines += [f"| {name} | {turn_ms(entities):.2f} ms |" for name, entities in kinds.items()]
    body = "\n".join(lines) + "\n"
    print(body)
    write_section("sys-entities", "Built-in entities (python -m bench.sys_entities)", body)


if __name__ == "__main__":
    main()
