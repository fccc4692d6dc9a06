"""make eval's languages (issue 32, docs/languages.md): xSID's eight languages, each as
its own story (as it is, and answering any language), the English story asked every
language, one story of English, German and Japanese variants asked each in its own,
and a pizza shop's small story in each language asked its paraphrases and off-topic
messages.

xSID: a story is built from a language's `valid` split and asked its `test` split (the
sentences are the same in every language, translated). The small stories are
bench/data/small_stories.json (3 interactions, 7 phrases, 6 paraphrases and 16
off-topic messages in each language, written for this before any tuning).
"""

import json
from pathlib import Path
from typing import Any

from bench.eval_stories import (
    Prediction,
    accuracy,
    choose_phrases,
    evaluate,
    fallbacks,
    off_topic,
)
from bench.stack import Stack

XSID = Path(__file__).resolve().parents[1].parent / "shared" / "nlu" / "xsid" / "xsid_0.7.json"
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
VARIANTS = ("en", "de", "ja")
"""The story of variants: English, with German and Japanese ones."""
SMALL_STORIES = Path(__file__).resolve().parent / "data" / "small_stories.json"


def xsid(language: str) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """One xSID language's phrases by intent (its `valid` split) and its `test` split."""
    data = json.loads(XSID.read_text())["languages"][language]
    by_intent: dict[str, list[str]] = {}
    for sentence in data["valid"]:
        by_intent.setdefault(sentence["intent"], []).append(sentence["text"])
    test = [(s["text"], s["intent"]) for s in data["test"]]
    return {i: choose_phrases(t) for i, t in by_intent.items()}, test


def _said_in(intent: str, code: str) -> list[dict[str, Any]]:
    return [{"type": "text", "messages": [f"{intent} ({code})"]}]


async def run_languages(stack: Stack) -> dict[str, list[Prediction]]:
    results: dict[str, list[Prediction]] = {}
    for code, language in XSID_LANGUAGES.items():
        by_intent, test = xsid(code)
        asked = {f"xsid_{code}": test}
        if code == "en":
            asked["xsid_en off-topic"] = off_topic()
        settings = {"language": language}
        results |= await evaluate(stack, f"xsid_{code}", by_intent, asked, settings)
        settings = {"language": language, "answerAnyLanguage": True}
        asked = {f"xsid_{code} any language": test}
        results |= await evaluate(stack, f"xsid_{code} any", by_intent, asked, settings)
    by_intent, _ = xsid("en")
    asked = {f"xsid en→{code}": xsid(code)[1] for code in XSID_LANGUAGES}
    settings = {"language": "english", "answerAnyLanguage": True}
    results |= await evaluate(stack, "xsid_en any language", by_intent, asked, settings)
    results |= await _variants(stack)
    for code, language in XSID_LANGUAGES.items():
        small = json.loads(SMALL_STORIES.read_text())["languages"][code]
        asked = {
            f"small {code} paraphrases": [(t, i) for t, i in small["paraphrases"]],
            f"small {code} off-topic": [(t, "None") for t in small["off_topic"]],
        }
        settings = {"language": language}
        results |= await evaluate(stack, f"small {code}", small["interactions"], asked, settings)
    return results


async def _variants(stack: Stack) -> dict[str, list[Prediction]]:
    """The English xSID story with each intent's German and Japanese phrases and an
    answer in each language, asked each language's test split in it."""
    by_intent, _ = xsid("en")
    translations: dict[str, dict[str, dict[str, Any]]] = {}
    for code in VARIANTS[1:]:
        for intent, phrases in xsid(code)[0].items():
            variant = {"userSays": phrases, "responses": _said_in(intent, code)}
            translations.setdefault(intent, {})[code] = variant
    asked = {f"xsid variants {code}": xsid(code)[1] for code in VARIANTS}
    settings = {"language": "english", "languages": list(VARIANTS[1:])}
    return await evaluate(
        stack,
        "xsid variants",
        by_intent,
        asked,
        settings,
        translations,
        {f"xsid variants {code}": code for code in VARIANTS},
    )


def language_lines(
    semantic: dict[str, list[Prediction]], lexical: dict[str, list[Prediction]]
) -> list[str]:
    lines = [
        "xSID (../shared/nlu/xsid): accuracy at the default confidence. Own story: each",
        "language's story (built from `valid`, asked `test`) as it is, and answering any",
        "language (goal ≥ its lexical figure and ≥ 0.93); the English story answering any",
        "language asked the same sentences in each language (goal ≥ 0.84 mean, ≥ 0.80",
        "each); the story of English, German and Japanese variants asked each language's",
        "sentences in it, right only when answered in it (goal ≥ 0.90).",
        "",
        "| language | own story | own story, any language | English story asked in it "
        "| story of variants |",
        "|---|---|---|---|---|",
    ]

    def both(name: str, answered_in: str | None = None) -> str:
        figures = [_right(r[name], answered_in) for r in (semantic, lexical)]
        return f"{figures[0]:.3f} ({figures[1]:.3f})"

    for code in XSID_LANGUAGES:
        variant = both(f"xsid variants {code}", code) if code in VARIANTS else "-"
        lines.append(
            f"| {code} | {both(f'xsid_{code}')} | {both(f'xsid_{code} any language')} "
            f"| {both(f'xsid en→{code}')} | {variant} |"
        )
    crossed = [accuracy(semantic[f"xsid en→{c}"]) for c in XSID_LANGUAGES if c != "en"]
    lines += [
        "",
        f"The English story asked in the other seven: mean {sum(crossed) / len(crossed):.3f}.",
        "",
        "Small stories (bench/data/small_stories.json: order a pizza, opening hours,",
        "delivery; 7 phrases) in each language at its defaults: its 6 paraphrases",
        "answered right, and its 16 off-topic messages falling back (goal ≥ 80 %).",
        "",
        "| language | paraphrases answered | off-topic falling back |",
        "|---|---|---|",
    ]
    for code in XSID_LANGUAGES:
        right = [accuracy(r[f"small {code} paraphrases"]) for r in (semantic, lexical)]
        fell = [fallbacks(r[f"small {code} off-topic"]) for r in (semantic, lexical)]
        lines.append(
            f"| {code} | {right[0]:.0%} ({right[1]:.0%}) | {fell[0]:.0%} ({fell[1]:.0%}) |"
        )
    return lines


def _right(predictions: list[Prediction], answered_in: str | None) -> float:
    """The accuracy; with `answered_in`, an answer counts only in that language."""
    if answered_in is None:
        return accuracy(predictions)
    kept = [
        p if p.answered_in == answered_in else Prediction(p.gold, "None", p.score)
        for p in predictions
    ]
    return accuracy(kept)
