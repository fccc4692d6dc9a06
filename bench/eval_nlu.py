"""make eval: how well stories built from public intent data answer their test split.

Each dataset of ../shared/nlu/ is uploaded through the management API as one story
with one interaction per intent (up to 99 user-says phrases: when an intent has more,
the 99 that together cover the most distinct words are taken, in the data's order),
then every test utterance goes to POST /query on a fresh session. Scoring follows the
papers (../shared/nlu/README.md): micro-averaged F1; a fallback answers `None` (Braun
et al.) or is no prediction (HWU64).
"""

import asyncio
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from bench.report import write_section
from bench.stack import Stack, running_stack
from bot_api.engine.text import tokens

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "nlu"
BRAUN = ("braun_chatbot", "braun_askubuntu", "braun_webapps")
DATASETS = (*BRAUN, "hwu64_kfold1")
MAX_PHRASES = 99
THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7)
DEFAULT_CONFIDENCE = 0.5


@dataclass(frozen=True)
class Prediction:
    gold: str
    predicted: str
    score: float


def load(name: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    data = json.loads((DATA / f"{name}.json").read_text())
    if "sentences" in data:
        rows = [(s["text"], s["intent"], s["training"]) for s in data["sentences"]]
        return [(t, i) for t, i, train in rows if train], [
            (t, i) for t, i, train in rows if not train
        ]
    return (
        [(s["text"], s["intent"]) for s in data["train"]],
        [(s["text"], s["intent"]) for s in data["test"]],
    )


def choose_phrases(texts: list[str]) -> list[str]:
    """At most 99 phrases, greedily the ones adding the most words not yet covered."""
    if len(texts) <= MAX_PHRASES:
        return texts
    chosen: list[str] = []
    covered: set[str] = set()
    remaining = list(dict.fromkeys(texts))
    while remaining and len(chosen) < MAX_PHRASES:
        best = max(remaining, key=lambda t: len(set(tokens(t)) - covered))
        remaining.remove(best)
        chosen.append(best)
        covered |= set(tokens(best))
    return chosen


async def evaluate(stack: Stack, name: str) -> list[Prediction]:
    train, test = load(name)
    by_intent: dict[str, list[str]] = {}
    for text, intent in train:
        by_intent.setdefault(intent, []).append(text)
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        async with http.post("/stories", json={"name": name, "description": ""}) as reply:
            story_id = (await reply.json())["id"]
        names: dict[str, str] = {}
        for intent, texts in by_intent.items():
            body = {"name": intent, "userSays": choose_phrases(texts)}
            async with http.post(f"/stories/{story_id}/interactions", json=body) as reply:
                assert reply.status == 200, await reply.text()
                names[(await reply.json())["id"]] = intent
        predictions = []
        for number, (text, gold) in enumerate(test):
            body = {
                "sessionId": f"{name}-{number}",
                "storyId": story_id,
                "query": text,
                "confidence": 0,
            }
            async with http.post("/query", json=body) as reply:
                result: dict[str, Any] = (await reply.json())["result"]
            interaction = result["interaction"]
            predicted = names.get(interaction["id"], "None") if interaction else "None"
            predictions.append(Prediction(gold, predicted, result["score"]))
    return predictions


def scores(
    name: str, predictions: list[Prediction], threshold: float
) -> tuple[float, float, float]:
    """(accuracy, micro-F1, fallback rate) with answers below `threshold` falling back."""
    answered = [(p.gold, p.predicted if p.score >= threshold else "None") for p in predictions]
    correct = sum(gold == predicted for gold, predicted in answered)
    fallback = sum(predicted == "None" for _, predicted in answered) / len(answered)
    accuracy = correct / len(answered)
    if name in BRAUN:
        return accuracy, accuracy, fallback
    predicted_some = [(g, p) for g, p in answered if p != "None"]
    true_positives = sum(g == p for g, p in predicted_some)
    precision = true_positives / len(predicted_some) if predicted_some else 0.0
    recall = true_positives / len(answered)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return accuracy, f1, fallback


def table(results: dict[str, list[Prediction]], seconds: float) -> str:
    lines = [
        "Stories built from ../shared/nlu through the management API, one interaction per",
        "intent; each test utterance sent to POST /query. No training step. Micro-F1 as in",
        "the papers (fallback = `None` for Braun et al., no prediction for HWU64).",
        "",
        "| dataset | test utterances | threshold | accuracy | micro-F1 | fallback rate |",
        "|---|---|---|---|---|---|",
    ]
    braun_all = [p for name in BRAUN for p in results[name]]
    for name, predictions in [*results.items(), ("braun overall", braun_all)]:
        for threshold in THRESHOLDS:
            kind = "braun_chatbot" if name == "braun overall" else name
            accuracy, f1, fallback = scores(kind, predictions, threshold)
            mark = " (default)" if threshold == DEFAULT_CONFIDENCE else ""
            lines.append(
                f"| {name} | {len(predictions)} | {threshold}{mark} | {accuracy:.3f} | "
                f"{f1:.3f} | {fallback:.1%} |"
            )
    lines += [
        "",
        "Published micro-F1 on the Braun corpora, overall: LUIS 0.91, Watson 0.92, API.ai",
        "0.87, Rasa 0.88 (Braun et al. 2017). HWU64: Liu et al. 2019 average all 10 folds;",
        f"this is fold 1 only. Whole evaluation: {seconds:.0f} s.",
    ]
    return "\n".join(lines)


def main() -> None:
    started = time.monotonic()
    with running_stack("eval") as stack:
        results = {name: asyncio.run(evaluate(stack, name)) for name in DATASETS}
    text = table(results, time.monotonic() - started)
    write_section("eval", "Matching quality (make eval)", text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
