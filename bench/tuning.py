"""make eval in-process, in seconds: the same English stories and test messages as
bench/eval_nlu.py (and the off-topic set asked of the small stories), compiled here and
answered by the engine's `respond` with each `Scoring` and encoder `Calibration` of
`CANDIDATES`, with the MiniLM vectors of every phrase and message encoded once and kept
in /tmp/parley-vectors (a few minutes of one core the first time). For trying ranking
formulas; `make eval` stays the figure of record. Run by hand: `python -m bench.tuning`
(`python -m bench.tuning lexical`: the default `Scoring` with the lexical stage alone).
"""

import json
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

from bench.eval_languages import xsid
from bench.eval_nlu import (
    BRAUN,
    DATASETS,
    OFF_TOPIC_STORIES,
    OUT_OF_SCOPE,
    THRESHOLDS,
    intents,
    out_of_scope,
    scores,
)
from bench.eval_stories import DEFAULT_CONFIDENCE, Prediction, off_topic
from bench.matching import build
from bot_api.encoding.minilm import CALIBRATION, LANGUAGES, MODEL_ID, MiniLmEncoder
from bot_api.engine.conversation import MAX_WORDS_CONSIDERED, respond
from bot_api.engine.scoring import SCORING, Calibration, Scoring
from bot_api.engine.semantic import PhraseVectors, Vectors, phrase_text, vector_key
from bot_api.engine.story import CompiledStory
from bot_api.engine.text import tokens
from bot_api.engine.turn import SessionState, Turn

CACHE = Path(f"/tmp/parley-vectors-{MODEL_ID}")
CANDIDATES: dict[str, tuple[Scoring, Calibration]] = {
    "now": (SCORING, CALIBRATION),
    "share knee 0.40": (SCORING, replace(CALIBRATION, share_knee=0.40)),
    "share knee 0.42": (SCORING, replace(CALIBRATION, share_knee=0.42)),
    "share knee 0.44": (SCORING, replace(CALIBRATION, share_knee=0.44)),
    "share knee 0.45": (SCORING, replace(CALIBRATION, share_knee=0.45)),
    "temperature 0.06": (SCORING, replace(CALIBRATION, temperature=0.06)),
    "lexical share 0.4": (replace(SCORING, lexical_share=0.4), CALIBRATION),
}
"""What is tried, by name: the first is the default."""


@cache
def vectors() -> dict[str, Vectors]:
    """Every phrase and message text's vector, encoded once (texts new to the cache are
    encoded and added)."""
    known: dict[str, Vectors] = {}
    if (CACHE / "texts.json").exists():
        texts = json.loads((CACHE / "texts.json").read_text())
        known = dict(zip(texts, np.load(CACHE / "vectors.npy"), strict=True))
    wanted: set[str] = set()
    for name in (*DATASETS, "xsid_en"):
        phrases, test = _phrases_and_test(name)
        wanted |= {phrase_text(p, {}) for ps in phrases.values() for p in ps}
        wanted |= {_said(t) for t, _ in [*test, *off_topic()]}
    missing = sorted(wanted - {""} - known.keys())
    if missing:
        known |= dict(zip(missing, MiniLmEncoder()(missing), strict=True))
        CACHE.mkdir(exist_ok=True)
        np.save(CACHE / "vectors.npy", np.stack(list(known.values())))
        (CACHE / "texts.json").write_text(json.dumps(list(known)))
    return known


def _said(text: str) -> str:
    return " ".join(tokens(text)[:MAX_WORDS_CONSIDERED])


def _phrases_and_test(name: str) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    return xsid("en") if name == "xsid_en" else intents(name)


@dataclass(frozen=True)
class CachedEncoder:
    calibration: Calibration = CALIBRATION
    model_id = MODEL_ID
    languages = LANGUAGES
    cross_lingual = False

    def __call__(self, texts: list[str]) -> Vectors:
        return np.stack([vectors()[t] for t in texts])


def story(name: str) -> tuple[CompiledStory, dict[str, str], list[tuple[str, str]]]:
    phrases, test = _phrases_and_test(name)
    stored = PhraseVectors(
        MODEL_ID,
        {  # as bot-api stores them: float16
            vector_key(MODEL_ID, t): v.astype(np.float16).astype(np.float32)
            for t, v in vectors().items()
        },
    )
    model = build([{"name": i, "userSays": p} for i, p in phrases.items()], stored)
    return model, {f"i{n}": i for n, i in enumerate(phrases)}, test


def evaluate(
    name: str,
    scoring: Scoring,
    calibration: Calibration | None,
    asked: list[tuple[str, str]] | None = None,
) -> list[Prediction]:
    """The story's answers to its test split (or `asked`); without a `calibration`, by
    the lexical stage alone."""
    model, names, test = story(name)
    encoder = None if calibration is None else CachedEncoder(calibration)
    predictions = []
    for text, gold in test if asked is None else asked:
        turn = Turn(query=text, confidence=0)
        _, outcome = respond(model, SessionState(), turn, lambda o: o[0], encoder, scoring)
        answered = outcome.interaction.id if outcome.interaction else ""
        predictions.append(Prediction(gold, names.get(answered, "None"), outcome.score))
    return predictions


def report(scoring: Scoring, calibration: Calibration | None) -> None:
    results = {name: evaluate(name, scoring, calibration) for name in (*DATASETS, OUT_OF_SCOPE)}
    braun = [p for b in BRAUN for p in results[b]]
    for threshold in THRESHOLDS:
        b = scores("braun_chatbot", braun, threshold)
        h = scores("hwu64_kfold1", results["hwu64_kfold1"], threshold)
        inside, rejected = out_of_scope(results[OUT_OF_SCOPE], threshold)
        print(
            f"{threshold}: Braun micro-F1 {b[1]:.3f} | HWU64 accuracy {h[0]:.3f} "
            f"micro-F1 {h[1]:.3f} | out of scope: fallback {rejected:.1%}, "
            f"in-scope accuracy {inside:.3f}"
        )
    fallbacks = []
    for name in OFF_TOPIC_STORIES:
        asked = evaluate(name, scoring, calibration, off_topic())
        fell = [p.score < DEFAULT_CONFIDENCE or p.predicted == "None" for p in asked]
        fallbacks.append(f"{name} {sum(fell) / len(fell):.0%}")
    print(f"off-topic fallback at {DEFAULT_CONFIDENCE}: " + ", ".join(fallbacks))


def main() -> None:
    if sys.argv[1:] == ["lexical"]:
        report(SCORING, None)
        return
    for name, (scoring, calibration) in CANDIDATES.items():
        print(f"{name}: {scoring}, {calibration}")
        report(scoring, calibration)


if __name__ == "__main__":
    main()
