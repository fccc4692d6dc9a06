"""What make eval's runs share: a story uploaded through the management API, asked
its test messages one by one on POST /query, and how the predictions are counted."""

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from bench.stack import Stack
from bot_api.encoding import minilm, use_and_e5, use_multilingual
from bot_api.engine.text import tokens

MAX_PHRASES = 99
DEFAULT_CONFIDENCE = 0.5
VECTORS_TIMEOUT = 1200.0
OFF_TOPIC = Path(__file__).resolve().parent / "data" / "off_topic.txt"


@dataclass(frozen=True)
class Prediction:
    gold: str
    predicted: str
    score: float
    answered_in: str | None = None
    """`result.answeredIn`, for a story of several languages."""


def encoded(settings: Mapping[str, Any]) -> bool:
    """Whether a story of these settings has a semantic stage: it is asked once every
    phrase vector is in."""
    if settings.get("answerAnyLanguage"):
        return settings["language"] in use_and_e5.LANGUAGES
    if settings.get("languages"):
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


def off_topic() -> list[tuple[str, str]]:
    lines = OFF_TOPIC.read_text().splitlines()
    return [(line, "None") for line in lines if line.strip() and not line.startswith("#")]


async def evaluate(
    stack: Stack,
    name: str,
    by_intent: Mapping[str, list[str]],
    asked: Mapping[str, list[tuple[str, str]]],
    settings: Mapping[str, Any] | None = None,
    translations: Mapping[str, Mapping[str, dict[str, Any]]] | None = None,
    asked_in: Mapping[str, str] | None = None,
) -> dict[str, list[Prediction]]:
    """One story of `by_intent` (with these `settings`, and each intent's
    `translations` as the API takes them), asked each set of `asked` (by the name its
    predictions are reported under; `asked_in` names a set's language, sent as the
    turn's `default_language`)."""
    settings = {"language": "english", **(settings or {})}
    headers = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    async with aiohttp.ClientSession(stack.url, headers=headers) as http:
        story = {"name": name, "description": "", "settings": settings}
        async with http.post("/stories", json=story) as reply:
            assert reply.status == 200, await reply.text()
            story_id = (await reply.json())["id"]
        names: dict[str, str] = {}
        for intent, texts in by_intent.items():
            body: dict[str, Any] = {"name": intent, "userSays": texts}
            if translations and intent in translations:
                body["translations"] = translations[intent]
            async with http.post(f"/stories/{story_id}/interactions", json=body) as reply:
                assert reply.status == 200, await reply.text()
                names[(await reply.json())["id"]] = intent
        if stack.config.semantic_matching and encoded(settings):
            await vectors_landed(http, story_id)
        results: dict[str, list[Prediction]] = {}
        for asked_name, messages in asked.items():
            language = (asked_in or {}).get(asked_name)
            parameters = {"default_language": language} if language else {}
            predictions = []
            for number, (text, gold) in enumerate(messages):
                body = {
                    "sessionId": f"{asked_name}-{number}",
                    "storyId": story_id,
                    "query": text,
                    "confidence": 0,
                    "parameters": parameters,
                }
                async with http.post("/query", json=body) as reply:
                    assert reply.status == 200, await reply.text()
                    result: dict[str, Any] = (await reply.json())["result"]
                interaction = result["interaction"]
                predicted = names.get(interaction["id"], "None") if interaction else "None"
                answered_in = result.get("answeredIn")
                predictions.append(Prediction(gold, predicted, result["score"], answered_in))
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


def accuracy(predictions: list[Prediction], threshold: float = DEFAULT_CONFIDENCE) -> float:
    """The share answered by the right intent (a fallback is right only for `None`)."""
    right = sum((p.predicted if p.score >= threshold else "None") == p.gold for p in predictions)
    return right / len(predictions)


def fallbacks(predictions: list[Prediction], threshold: float = DEFAULT_CONFIDENCE) -> float:
    """The share that falls back (or is answered by a Braun story's `None` intent)."""
    return sum(p.score < threshold or p.predicted == "None" for p in predictions) / len(predictions)
