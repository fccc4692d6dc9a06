"""make eval in-process, in seconds: the same stories and test messages as
bench/eval_nlu.py, compiled here and answered by the engine's `respond`, with the
MiniLM vectors of every phrase and message encoded once and kept in
/tmp/parley-vectors (a few minutes of one core the first time). For trying ranking
formulas; `make eval` stays the figure of record. Run by hand: `python -m bench.tuning`.
"""

import json
from functools import cache
from pathlib import Path

import numpy as np

from bench.eval_nlu import (
    BRAUN,
    DATASETS,
    OUT_OF_SCOPE,
    THRESHOLDS,
    Prediction,
    intents,
    out_of_scope,
    scores,
)
from bench.matching import build
from bot_api.encoding.minilm import LANGUAGES, MODEL_ID, MiniLmEncoder
from bot_api.engine.conversation import MAX_WORDS_CONSIDERED, respond
from bot_api.engine.semantic import PhraseVectors, Vectors, phrase_text, vector_key
from bot_api.engine.story import CompiledStory
from bot_api.engine.text import tokens
from bot_api.engine.turn import SessionState, Turn

CACHE = Path("/tmp/parley-vectors")


@cache
def vectors() -> dict[str, Vectors]:
    """Every phrase and message text's vector, encoded once."""
    if (CACHE / "texts.json").exists():
        texts = json.loads((CACHE / "texts.json").read_text())
        return dict(zip(texts, np.load(CACHE / "vectors.npy"), strict=True))
    wanted: set[str] = set()
    for name in DATASETS:
        phrases, test = intents(name)
        wanted |= {phrase_text(p, {}) for ps in phrases.values() for p in ps}
        wanted |= {" ".join(tokens(t)[:MAX_WORDS_CONSIDERED]) for t, _ in test}
    texts = sorted(wanted - {""})
    encoded = MiniLmEncoder()(texts)
    CACHE.mkdir(exist_ok=True)
    np.save(CACHE / "vectors.npy", encoded)
    (CACHE / "texts.json").write_text(json.dumps(texts))
    return dict(zip(texts, encoded, strict=True))


class CachedEncoder:
    model_id = MODEL_ID
    languages = LANGUAGES

    def __call__(self, texts: list[str]) -> Vectors:
        return np.stack([vectors()[t] for t in texts])


def story(name: str) -> tuple[CompiledStory, dict[str, str], list[tuple[str, str]]]:
    phrases, test = intents(name)
    stored = PhraseVectors(
        MODEL_ID,
        {  # as bot-api stores them: float16
            vector_key(MODEL_ID, t): v.astype(np.float16).astype(np.float32)
            for t, v in vectors().items()
        },
    )
    model = build([{"name": i, "userSays": p} for i, p in phrases.items()], stored)
    return model, {f"i{n}": i for n, i in enumerate(phrases)}, test


def evaluate(name: str) -> list[Prediction]:
    model, names, test = story(name)
    encoder = CachedEncoder()
    predictions = []
    for text, gold in test:
        turn = Turn(query=text, confidence=0)
        _, outcome = respond(model, SessionState(), turn, lambda o: o[0], encoder)
        answered = outcome.interaction.id if outcome.interaction else ""
        predictions.append(Prediction(gold, names.get(answered, "None"), outcome.score))
    return predictions


def main() -> None:
    results = {name: evaluate(name) for name in (*DATASETS, OUT_OF_SCOPE)}
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


if __name__ == "__main__":
    main()
