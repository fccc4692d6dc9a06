"""make eval: how well stories built from public intent data answer their test split.

Each dataset of ../shared/nlu/ is uploaded through the management API as one story
with one interaction per intent (up to 99 user-says phrases: when an intent has more,
the 99 that together cover the most distinct words are taken, in the data's order),
then every test utterance goes to POST /query on a fresh session. Scoring follows the
papers (../shared/nlu/README.md): micro-averaged F1; a fallback answers `None` (Braun
et al.) or is no prediction (HWU64).

Everything runs twice: with the semantic stage (the default) and lexical only. The
out-of-scope run builds HWU64 without ten of its intents (`LEFT_OUT`, fixed before any
tuning: every sixth intent in sorted order) and counts how many of their test messages
fall back, beside the accuracy on the others. The Braun stories and the English xSID
story are also asked the off-topic messages of bench/data/off_topic.txt (written once,
before any tuning), which should all fall back.

xSID: each language's story is built from its `valid` split and asked its `test` split;
the English story, with `answerAnyLanguage`, is also asked every language's `test` split
(the sentences are the same, translated), which a story answers only if it understands
that language.
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
from bot_api.encoding import minilm, use_multilingual
from bot_api.engine.text import tokens

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "nlu"
BRAUN = ("braun_chatbot", "braun_askubuntu", "braun_webapps")
DATASETS = (*BRAUN, "hwu64_kfold1")
MAX_PHRASES = 99
THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7)
DEFAULT_CONFIDENCE = 0.5
OUT_OF_SCOPE = "hwu64_out_of_scope"
LEFT_OUT = (
    "alarm_query",
    "calendar_query",
    "email_addcontact",
    "general_confirm",
    "general_quirky",
    "iot_hue_lightoff",
    "lists_query",
    "play_audiobook",
    "qa_definition",
    "recommendation_movies",
)
VECTORS_TIMEOUT = 1200.0
XSID = DATA / "xsid" / "xsid_0.7.json"
XSID_LANGUAGES = {
    "en": "english",
    "de": "german",
    "da": "danish",
    "nl": "dutch",
    "it": "italian",
    "id": "indonesian",
    "ja": "japanese",
    "zh": "chinese",
}
"""Each xSID language's story `language`."""
OFF_TOPIC = Path(__file__).resolve().parent / "data" / "off_topic.txt"
OFF_TOPIC_STORIES = (*BRAUN, "xsid_en")
"""The small stories the off-topic messages are asked of."""


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


def encoded(settings: dict[str, Any]) -> bool:
    """Whether a story of these settings has a semantic stage: it is asked once every
    phrase vector is in."""
    if settings.get("answerAnyLanguage"):
        return settings["language"] in use_multilingual.LANGUAGES
    return settings["language"] in minilm.LANGUAGES


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


def intents(name: str) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """The phrases uploaded for each intent (`LEFT_OUT` left out of the out-of-scope
    run), and the test split."""
    left_out = LEFT_OUT if name == OUT_OF_SCOPE else ()
    train, test = load("hwu64_kfold1" if name == OUT_OF_SCOPE else name)
    by_intent: dict[str, list[str]] = {}
    for text, intent in train:
        if intent not in left_out:
            by_intent.setdefault(intent, []).append(text)
    return {i: choose_phrases(t) for i, t in by_intent.items()}, test


def xsid(language: str) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """One xSID language's phrases by intent (its `valid` split) and its `test` split."""
    data = json.loads(XSID.read_text())["languages"][language]
    by_intent: dict[str, list[str]] = {}
    for sentence in data["valid"]:
        by_intent.setdefault(sentence["intent"], []).append(sentence["text"])
    test = [(s["text"], s["intent"]) for s in data["test"]]
    return {i: choose_phrases(t) for i, t in by_intent.items()}, test


def off_topic() -> list[tuple[str, str]]:
    lines = OFF_TOPIC.read_text().splitlines()
    return [(line, "None") for line in lines if line.strip() and not line.startswith("#")]


async def evaluate(
    stack: Stack,
    name: str,
    by_intent: dict[str, list[str]],
    asked: dict[str, list[tuple[str, str]]],
    settings: dict[str, Any] | None = None,
) -> dict[str, list[Prediction]]:
    """One story of `by_intent` (with these `settings`), asked each set of `asked` (by
    the name its predictions are reported under)."""
    settings = settings or {"language": "english"}
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        story = {"name": name, "description": "", "settings": settings}
        async with http.post("/stories", json=story) as reply:
            story_id = (await reply.json())["id"]
        names: dict[str, str] = {}
        for intent, texts in by_intent.items():
            body = {"name": intent, "userSays": texts}
            async with http.post(f"/stories/{story_id}/interactions", json=body) as reply:
                assert reply.status == 200, await reply.text()
                names[(await reply.json())["id"]] = intent
        if stack.config.semantic_matching and encoded(settings):
            await vectors_landed(http, story_id)
        results: dict[str, list[Prediction]] = {}
        for asked_name, messages in asked.items():
            predictions = []
            for number, (text, gold) in enumerate(messages):
                body = {
                    "sessionId": f"{asked_name}-{number}",
                    "storyId": story_id,
                    "query": text,
                    "confidence": 0,
                }
                async with http.post("/query", json=body) as reply:
                    result: dict[str, Any] = (await reply.json())["result"]
                interaction = result["interaction"]
                predicted = names.get(interaction["id"], "None") if interaction else "None"
                predictions.append(Prediction(gold, predicted, result["score"]))
            results[asked_name] = predictions
    return results


async def vectors_landed(http: aiohttp.ClientSession, story_id: str) -> None:
    """Wait until every phrase vector of the story is computed (the semantic stage shows
    in `debug`, and no phrase waits for its vector: `parley_phrase_vectors_waiting`), then
    ask once more, so the story takes the last ones in."""
    deadline = time.monotonic() + VECTORS_TIMEOUT
    body = {"sessionId": "vectors", "storyId": story_id, "query": "zq", "debug": True}
    while time.monotonic() < deadline:
        async with http.post("/query", json=body) as reply:
            assert reply.status == 200, await reply.text()
            candidates = (await reply.json())["result"]["debug"]["candidates"]
        semantic = any(c["semantic"] is not None for c in candidates)
        if semantic and await _phrases_waiting(http) == 0:
            async with http.post("/query", json=body) as reply:
                assert reply.status == 200, await reply.text()
            return
        await asyncio.sleep(1)
    raise TimeoutError(f"the phrase vectors of {story_id} did not land")


async def _phrases_waiting(http: aiohttp.ClientSession) -> float:
    async with http.get("/metrics") as reply:
        text = await reply.text()
    line = next(x for x in text.splitlines() if x.startswith("parley_phrase_vectors_waiting "))
    return float(line.split()[1])


def out_of_scope(predictions: list[Prediction], threshold: float) -> tuple[float, float]:
    """(accuracy on the intents the story has, share of the others' messages that fall
    back)."""
    inside = [p for p in predictions if p.gold not in LEFT_OUT]
    outside = [p for p in predictions if p.gold in LEFT_OUT]
    accuracy = sum(p.gold == p.predicted and p.score >= threshold for p in inside) / len(inside)
    return accuracy, sum(p.score < threshold for p in outside) / len(outside)


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


def table(results: dict[str, dict[str, list[Prediction]]], seconds: float) -> str:
    lines = [
        "Stories built from ../shared/nlu through the management API, one interaction per",
        "intent; each test utterance sent to POST /query. No training step. Micro-F1 as in",
        "the papers (fallback = `None` for Braun et al., no prediction for HWU64). Each",
        "figure with the semantic stage (the default), lexical stage alone in brackets.",
        "",
        "| dataset | test utterances | threshold | accuracy | micro-F1 | fallback rate |",
        "|---|---|---|---|---|---|",
    ]
    semantic, lexical = results["semantic"], results["lexical"]
    for name in [*DATASETS, "braun overall"]:
        for threshold in THRESHOLDS:
            kind = "braun_chatbot" if name == "braun overall" else name
            both = [scores(kind, _predictions(r, name), threshold) for r in (semantic, lexical)]
            mark = " (default)" if threshold == DEFAULT_CONFIDENCE else ""
            cells = " | ".join(
                f"{s:{form}} ({b:{form}})"
                for s, b, form in zip(both[0], both[1], (".3f", ".3f", ".1%"), strict=True)
            )
            count = len(_predictions(semantic, name))
            lines.append(f"| {name} | {count} | {threshold}{mark} | {cells} |")
    lines += [
        "",
        f"Out of scope: HWU64 fold 1 without {len(LEFT_OUT)} intents ({', '.join(LEFT_OUT)});",
        "accuracy on the others' test messages, and the share of the left-out intents'",
        "messages that fall back (goal ≥ 60 % with accuracy ≥ 0.88).",
        "",
        "| threshold | in-scope accuracy | out-of-scope fallback |",
        "|---|---|---|",
    ]
    for threshold in THRESHOLDS:
        (s_acc, s_fb), (l_acc, l_fb) = (
            out_of_scope(r[OUT_OF_SCOPE], threshold) for r in (semantic, lexical)
        )
        mark = " (default)" if threshold == DEFAULT_CONFIDENCE else ""
        lines.append(f"| {threshold}{mark} | {s_acc:.3f} ({l_acc:.3f}) | {s_fb:.1%} ({l_fb:.1%}) |")
    lines += ["", *_xsid_lines(semantic, lexical), "", *_off_topic_lines(semantic, lexical)]
    lines += [
        "",
        "Published micro-F1 on the Braun corpora, overall: LUIS 0.91, Watson 0.92, API.ai",
        "0.87, Rasa 0.88 (Braun et al. 2017). HWU64: Liu et al. 2019 average all 10 folds;",
        f"this is fold 1 only. Whole evaluation (both runs, phrase vectors included): "
        f"{seconds:.0f} s.",
    ]
    return "\n".join(lines)


def _accuracy(predictions: list[Prediction], threshold: float = DEFAULT_CONFIDENCE) -> float:
    """The share answered by the right intent (a fallback is right only for `None`)."""
    right = sum((p.predicted if p.score >= threshold else "None") == p.gold for p in predictions)
    return right / len(predictions)


def _xsid_lines(
    semantic: dict[str, list[Prediction]], lexical: dict[str, list[Prediction]]
) -> list[str]:
    lines = [
        "xSID (../shared/nlu/xsid): accuracy at the default confidence of each language's",
        "story (built from `valid`, asked `test`; goal ≥ 0.93), and of the English story",
        "with `answerAnyLanguage` asked the same sentences in each language (goal ≥ 0.80).",
        "",
        "| language | own story | English story asked in it |",
        "|---|---|---|",
    ]

    def both(name: str) -> str:
        return f"{_accuracy(semantic[name]):.3f} ({_accuracy(lexical[name]):.3f})"

    for code in XSID_LANGUAGES:
        crossed = both(f"xsid en→{code}")
        lines.append(f"| {code} | {both(f'xsid_{code}')} | {crossed} |")
    return lines


def _off_topic_lines(
    semantic: dict[str, list[Prediction]], lexical: dict[str, list[Prediction]]
) -> list[str]:
    count = len(off_topic())
    lines = [
        f"Off-topic: the {count} messages of bench/data/off_topic.txt asked of the small",
        "stories; the share that falls back at each threshold (goal ≥ 80 % at the default).",
        "",
        "| story | " + " | ".join(str(t) for t in THRESHOLDS) + " |",
        "|---|" + "---|" * len(THRESHOLDS),
    ]
    for story in OFF_TOPIC_STORIES:
        name = f"{story} off-topic"
        cells = [
            f"{_fallbacks(semantic[name], t):.0%} ({_fallbacks(lexical[name], t):.0%})"
            for t in THRESHOLDS
        ]
        lines.append(f"| {story} | " + " | ".join(cells) + " |")
    return lines


def _fallbacks(predictions: list[Prediction], threshold: float) -> float:
    """The share that falls back (or is answered by a Braun story's `None` intent)."""
    return sum(p.score < threshold or p.predicted == "None" for p in predictions) / len(predictions)


def _predictions(results: dict[str, list[Prediction]], name: str) -> list[Prediction]:
    if name == "braun overall":
        return [p for braun in BRAUN for p in results[braun]]
    return results[name]


async def run_all(stack: Stack) -> dict[str, list[Prediction]]:
    results: dict[str, list[Prediction]] = {}
    for name in (*DATASETS, OUT_OF_SCOPE):
        by_intent, test = intents(name)
        asked = {name: test}
        if name in OFF_TOPIC_STORIES:
            asked[f"{name} off-topic"] = off_topic()
        results |= await evaluate(stack, name, by_intent, asked)
    for code, language in XSID_LANGUAGES.items():
        by_intent, test = xsid(code)
        asked = {f"xsid_{code}": test}
        if f"xsid_{code}" in OFF_TOPIC_STORIES:
            asked[f"xsid_{code} off-topic"] = off_topic()
        settings = {"language": language}
        results |= await evaluate(stack, f"xsid_{code}", by_intent, asked, settings)
    by_intent, _ = xsid("en")
    asked = {f"xsid en→{code}": xsid(code)[1] for code in XSID_LANGUAGES}
    settings = {"language": "english", "answerAnyLanguage": True}
    results |= await evaluate(stack, "xsid_en any language", by_intent, asked, settings)
    return results


def main() -> None:
    started = time.monotonic()
    results = {}
    for mode in ("semantic", "lexical"):
        with running_stack(f"eval{mode}", semantic_matching=mode == "semantic") as stack:
            results[mode] = asyncio.run(run_all(stack))
    text = table(results, time.monotonic() - started)
    write_section("eval", "Matching quality (make eval)", text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
