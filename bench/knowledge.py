"""Knowledge answers measured on XQuAD (`python -m bench.knowledge`): each of the 48
articles of a language uploaded as a document (its paragraphs joined by blank lines),
all 1,190 questions asked, through the pure classes (no HTTP).

For each setting it prints how often the gold answer is inside the cited passage and
inside the answer sentence, for en/de/es/zh questions of their own articles and German
questions of the English ones (a story answering any language), lexically and with
meaning; then the refusal test: every other article uploaded, the share of the other
half's questions refused and of the uploaded half's answered from the right passage,
at a few thresholds. Passage and question vectors are kept in /tmp by text hash, so a
rerun encodes nothing; the costs (ms a passage, a question, MB) are measured fresh.

`--shares 0.2,0.3,0.4` also ranks with other blend shares (docs/knowledge.md "Answers by meaning").
"""

import argparse
import dataclasses
import hashlib
import json
import resource
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import bot_api.knowledge.index as knowledge_index
from bot_api.domain.knowledge import Citation
from bot_api.encoding.e5_small import MODEL_ID, E5SmallEncoder
from bot_api.engine.semantic import Vectors
from bot_api.knowledge.blocks import Block, Extracted
from bot_api.knowledge.index import REFUSAL, IndexedDocument, KnowledgeIndex, passage_terms
from bot_api.knowledge.meaning import BLEND, PassageEncoder, encoded_text
from bot_api.knowledge.passages import passages_of

XQUAD = Path("/work/shared/knowledge/xquad")
CACHE = Path(f"/tmp/parley-knowledge-vectors-{MODEL_ID}.npz")
LANGUAGES = {"en": "english", "de": "german", "es": "spanish", "zh": "chinese"}
CURVE = (0.72, 0.74, 0.76, 0.78, 0.80, 0.82)
"""Thresholds shown for the blend used."""
KEEP = 0.90
"""The share of the uploaded half's questions a refusal threshold must keep answered
from the right passage."""


class CachedEncoder:
    """The real encoder behind a file of the vectors it computed, by text hash."""

    model_id = MODEL_ID
    dimension = 384

    def __init__(self, encoder: E5SmallEncoder) -> None:
        self._encoder = encoder
        self._known: dict[str, Vectors] = {}
        if CACHE.exists():
            with np.load(CACHE) as stored:
                self._known = {key: stored[key] for key in stored.files}
        self.fresh = 0

    def passages(self, texts: Sequence[str]) -> Vectors:
        keys = [_key("passage", t) for t in texts]
        wanted = [t for t, k in zip(texts, keys, strict=True) if k not in self._known]
        for start in range(0, len(wanted), 32):
            chunk = wanted[start : start + 32]
            for text, vector in zip(chunk, self._encoder.passages(chunk), strict=True):
                self._known[_key("passage", text)] = vector
            self.fresh += len(chunk)
        return np.stack([self._known[k] for k in keys])

    def question(self, text: str) -> Vectors:
        key = _key("query", text)
        if key not in self._known:
            self._known[key] = self._encoder.question(text)
            self.fresh += 1
        return self._known[key]

    def save(self) -> None:
        if self.fresh:
            np.savez(CACHE, **self._known)  # type: ignore[arg-type]


def _key(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest()


def articles(tag: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((XQUAD / f"xquad.{tag}.json").read_text())["data"]
    return data


def documents(
    tag: str, encoder: PassageEncoder | None, keep: Sequence[int] | None = None
) -> list[IndexedDocument]:
    language = LANGUAGES[tag]
    made = []
    for number, article in enumerate(articles(tag)):
        if keep is not None and number not in keep:
            continue
        title = article["title"].replace("_", " ")
        blocks = tuple(Block(p["context"]) for p in article["paragraphs"])
        passages = passages_of(Extracted(blocks), f"d{number}", language)
        vectors = None
        if encoder is not None:
            vectors = encoder.passages([encoded_text(p, title) for p in passages])
        made.append(
            IndexedDocument(
                citation=Citation(document_id=f"d{number}", title=title),
                passages=passages,
                terms=tuple(passage_terms(language, p, title) for p in passages),
                vectors=vectors,
            )
        )
    return made


def questions(asked: str, answered: str) -> list[tuple[int, str, list[str]]]:
    """(article, question in `asked`, gold answers in `answered`'s text), XQuAD being
    parallel: the same articles and questions in the same order."""
    found = []
    for number, (a, b) in enumerate(zip(articles(asked), articles(answered), strict=True)):
        for pa, pb in zip(a["paragraphs"], b["paragraphs"], strict=True):
            for qa, qb in zip(pa["qas"], pb["qas"], strict=True):
                found.append((number, qa["question"], [x["text"] for x in qb["answers"]]))
    return found


@dataclass(frozen=True)
class Asked:
    """A question's outcome with refusal off: its article, the best passage's coverage
    and cosine (None lexically), whether the gold answer is in the passage, the sentence."""

    article: int
    lexical: float
    meaning: float | None
    in_passage: bool
    in_sentence: bool

    def held(self, share: float) -> float:
        """What is compared with the refusal threshold."""
        if self.meaning is None:
            return self.lexical
        return share * self.lexical + (1 - share) * self.meaning


def run(
    index: KnowledgeIndex,
    asked: list[tuple[int, str, list[str]]],
    encoder: PassageEncoder | None,
    any_language: bool,
) -> list[Asked]:
    results = []
    for article, question, gold in asked:
        turn = index.answer(question, 2.0, True, encoder, any_language)
        answer = turn.answer
        if answer is None or not turn.ranked:
            results.append(Asked(article, 0.0, None, False, False))
            continue
        top = turn.ranked[0]
        results.append(
            Asked(
                article,
                top.lexical,
                top.meaning,
                any(g in answer.passage for g in gold),
                any(g in answer.answer for g in gold),
            )
        )
    return results


def never_refusing(index: KnowledgeIndex) -> KnowledgeIndex:
    blend = dataclasses.replace(
        index.blend, refusal=-9.0, foreign_refusal=-9.0, refusal_by_language={}
    )
    return dataclasses.replace(index, blend=blend)


def accuracy_rows(encoder: CachedEncoder, shares: Sequence[float]) -> None:
    print("\n| questions | ranking | in passage | in sentence |")
    print("| --- | --- | --- | --- |")
    cases = [(t, t, False) for t in LANGUAGES] + [("de", "en", True)]
    for asked_in, story_in, any_language in cases:
        asked = questions(asked_in, story_in)
        name = f"{asked_in} of {story_in}" if asked_in != story_in else asked_in
        lexical = KnowledgeIndex.build(LANGUAGES[story_in], documents(story_in, None))
        rows = run(lexical, asked, None, any_language)
        print(
            f"| {name} | lexical | {_share(rows, 'in_passage')} | {_share(rows, 'in_sentence')} |"
        )
        meaning = never_refusing(
            KnowledgeIndex.build(LANGUAGES[story_in], documents(story_in, encoder))
        )
        for share in shares:
            blended = dataclasses.replace(
                meaning, blend=dataclasses.replace(meaning.blend, share=share)
            )
            rows = run(blended, asked, encoder, any_language)
            label = f"blend {share:g}" if share != meaning.blend.share else f"blend {share:g} *"
            _accuracy_row(name, label, rows)
        encoder.save()


def refusal_rows(encoder: CachedEncoder) -> None:
    """Every other article uploaded; for each way of reading the best passage (lexical
    coverage; `b` coverage + (1 - b) cosine), the threshold refusing most of the other
    half's questions while at least `KEEP` of the uploaded half's are answered from the
    right passage, and the chosen threshold's figures."""
    print("\n| questions | refused on | threshold | other half refused | uploaded half right |")
    print("| --- | --- | --- | --- | --- |")
    half = list(range(0, 48, 2))
    cases = [(t, t, False) for t in LANGUAGES] + [("de", "en", True)]
    for asked_in, story_in, any_language in cases:
        asked = questions(asked_in, story_in)
        name = f"{asked_in} of {story_in}" if asked_in != story_in else asked_in
        language = LANGUAGES[story_in]
        lexical = KnowledgeIndex.build(language, documents(story_in, None, half))
        meaning = never_refusing(KnowledgeIndex.build(language, documents(story_in, encoder, half)))
        blend = BLEND
        chosen = blend.foreign_refusal if any_language else blend.refusal_of(language)
        rows = run(lexical, asked, None, any_language)
        _refusal_row(name, "coverage", rows, 0.0, [REFUSAL])
        rows = run(meaning, asked, encoder, any_language)
        for share in (0.0,) if any_language else (0.0, 0.15, blend.share):
            grid = [round(0.6 + 0.005 * n, 3) for n in range(60)]
            best = max((t for t in grid if _refusal(rows, half, share, t)[1] >= KEEP), default=0.6)
            used = (*CURVE, chosen) if share == (0.0 if any_language else blend.share) else ()
            _refusal_row(name, f"blend {share:g}", rows, share, sorted({best, *used}))
        encoder.save()


def _refusal(
    rows: list[Asked], half: list[int], share: float, threshold: float
) -> tuple[float, float]:
    out = [r for r in rows if r.article not in half]
    kept = [r for r in rows if r.article in half]
    refused = sum(1 for r in out if r.held(share) < threshold) / len(out)
    right = sum(1 for r in kept if r.held(share) >= threshold and r.in_passage) / len(kept)
    return refused, right


def _refusal_row(
    name: str, label: str, rows: list[Asked], share: float, thresholds: Sequence[float]
) -> None:
    half = list(range(0, 48, 2))
    for threshold in thresholds:
        refused, right = _refusal(rows, half, share, threshold)
        print(f"| {name} | {label} | {threshold:g} | {refused:.3f} | {right:.3f} |")


def _accuracy_row(name: str, label: str, rows: list[Asked]) -> None:
    passage, sentence = _share(rows, "in_passage"), _share(rows, "in_sentence")
    print(f"| {name} | {label} | {passage} | {sentence} |")


def _share(rows: list[Asked], column: str) -> str:
    return f"{sum(1 for r in rows if getattr(r, column)) / len(rows):.3f}"


def costs() -> None:
    """Fresh encodings of XQuAD en's first passages and questions, one thread."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    encoder = E5SmallEncoder()
    started = time.perf_counter()
    encoder.question("loaded")
    loaded = time.perf_counter() - started
    texts = [p["context"] for a in articles("en")[:4] for p in a["paragraphs"]][:24]
    asked = [q for _, q, _ in questions("en", "en")[:50]]
    started, used = time.perf_counter(), time.process_time()
    encoder.passages(texts)
    passage = _per(started, used, len(texts))
    started, used = time.perf_counter(), time.process_time()
    for question in asked:
        encoder.question(question)
    question = _per(started, used, len(asked))
    words = sum(len(t.split()) for t in texts) / len(texts)
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(
        f"load {loaded * 1000:.0f} ms; a passage ({words:.0f} words) {passage}; "
        f"a question {question}; memory +{grown:.0f} MB (resident peak)"
    )


def _per(started: float, used: float, count: int) -> str:
    """Milliseconds of wall clock and of this process's CPU time (what a busy machine
    does not inflate) per item."""
    wall = (time.perf_counter() - started) / count * 1000
    cpu = (time.process_time() - used) / count * 1000
    return f"{wall:.0f} ms ({cpu:.0f} ms of CPU)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shares", default="")
    given = parser.parse_args()
    knowledge_index.REFUSAL = -9.0  # the lexical ranking's refusal off: thresholds swept here
    costs()
    encoder = CachedEncoder(E5SmallEncoder())
    chosen = KnowledgeIndex.build("english", []).blend.share
    shares = sorted({chosen, *(float(s) for s in given.shares.split(",") if s)})
    accuracy_rows(encoder, shares)
    refusal_rows(encoder)


if __name__ == "__main__":
    main()
