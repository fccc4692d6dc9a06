"""A story's knowledge, searchable: its FAQ pairs through the interactions' own matcher,
its passages through BM25, and the answer chosen from them (docs/knowledge.md).

FAQ pairs are matched first, by `engine.matching.MatchIndex` (the analysers, typo
tolerance and calibrated confidence interactions get), each pair's question and
alternative phrasings its phrases: a pair at or above the story's confidence answers.
Else the passages are ranked by BM25 (bm25s, k1 0.9 and b 0.4: better than its defaults
1.5/0.75 on XQuAD, where passages are short) over the words of the story's language as
the matcher reads them (stemmed, segmented), each passage with its heading and document
title. The best passage answers when it holds at least `REFUSAL` of the question's term
weight (`coverage`); the answer is its sentence that holds most of it (answer.py).

Once every passage's vector is in (computed in the background, knowledge/vectors.py) and
an encoder is given, the question is encoded too and meaning joins in (meaning.py,
docs/knowledge.md "Answers by meaning"): the 10 best passages by BM25 and the 10 closest by cosine
(over all passages) are ranked by a blend of both and refused on a blend of coverage and
cosine; a question in another language than the story's, where the story answers any
language, by cosine alone.
"""

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import bm25s
import numpy as np
import numpy.typing as npt

from bot_api.domain.knowledge import Citation, KnowledgeAnswer, KnowledgeTurn, RankedPassage
from bot_api.domain.settings import LANGUAGE_TAGS
from bot_api.engine.language_detection import written_in
from bot_api.engine.matching import MatchIndex
from bot_api.engine.semantic import Vectors
from bot_api.knowledge.answer import answer_sentence
from bot_api.knowledge.meaning import BLEND, Blend, PassageEncoder, closest_sentence
from bot_api.knowledge.passages import Passage, one_line
from bot_api.knowledge.terms import background, coverage, question_terms, terms_of

K1, B = 0.9, 0.4
FEWEST_PASSAGES = 50
"""A story with fewer passages is weighed as if it had this many, the others without the
question's words: in a story of one passage each of its words would weigh 0.29 against
1.39 for a word it lacks (0.77 with 50), and a question using any word the passage lacks
would be refused. At XQuAD's 240-291 passages a language it changes nothing."""
CANDIDATES = 10
"""Passages weighed for a question (and shown by `debug`)."""
REFUSAL = 0.28
"""The share of the question's term weight the best passage must hold. Measured on
XQuAD with every other article uploaded (bench/knowledge.py), the other half's questions
refused / the uploaded half's right passages kept: en 0.70/0.92 at 0.26, 0.82/0.92 at
0.30; de 0.80/0.87, 0.88/0.84; zh 0.90/0.89, 0.94/0.87."""


@dataclass(frozen=True)
class FaqPair:
    id: str
    question: str
    answer: str
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True)
class IndexedDocument:
    """What the index keeps of a document: its citation, its passages (a text
    document's) and its FAQ pairs (an FAQ document's)."""

    citation: Citation
    passages: tuple[Passage, ...] = ()
    faq: tuple[FaqPair, ...] = ()
    terms: tuple[tuple[str, ...], ...] = ()
    """Each passage's terms as `passage_terms` read them on upload (read anew if not)."""
    vectors: Vectors | None = None
    """Each passage's vector (a row each), once all have landed."""

    def passage_terms(self, language: str) -> list[tuple[str, ...]]:
        if len(self.terms) == len(self.passages):
            return list(self.terms)
        title = self.citation.title
        return [passage_terms(language, p, title) for p in self.passages]


@dataclass(frozen=True)
class KnowledgeIndex:
    language: str
    documents: Mapping[str, IndexedDocument]
    passages: tuple[Passage, ...]
    faq: Mapping[str, tuple[FaqPair, str]]
    """A pair's id -> the pair and its document's id."""
    faq_index: MatchIndex | None
    bm25: bm25s.BM25 | None
    terms: tuple[frozenset[str], ...] = ()
    """Each passage's terms (with its title's and heading's)."""
    document_frequency: Mapping[str, int] = field(default_factory=dict)
    vectors: Vectors | None = None
    """Each passage's vector (a row each), when every document's have landed."""
    blend: Blend = BLEND
    positions: Mapping[str, int] = field(default_factory=dict)
    """Each passage's place in `passages`, by its id."""

    @classmethod
    def build(cls, language: str, documents: Sequence[IndexedDocument]) -> "KnowledgeIndex":
        passages = tuple(p for d in documents for p in d.passages)
        faq = {pair.id: (pair, d.citation.document_id) for d in documents for pair in d.faq}
        by_id = {d.citation.document_id: d for d in documents}
        background(language, "")  # the language's word frequencies read here, not in a turn
        faq_index = None
        if faq:
            faq_index = MatchIndex.build(
                {i: (pair.question, *pair.alternatives) for i, (pair, _) in faq.items()},
                language,
            )
        bm25, frequency = None, Counter[str]()
        corpus = [terms for d in documents for terms in d.passage_terms(language)]
        held = tuple(frozenset(terms) for terms in corpus)
        for terms in held:
            frequency.update(terms)
        vectors = None
        if passages:
            bm25 = bm25s.BM25(k1=K1, b=B)
            bm25.index(corpus, show_progress=False)
            rows = [d.vectors for d in documents if d.passages]
            if all(r is not None for r in rows):
                vectors = np.concatenate([r for r in rows if r is not None]).astype(np.float32)
        positions = {p.id: n for n, p in enumerate(passages)}
        return cls(
            language,
            by_id,
            passages,
            faq,
            faq_index,
            bm25,
            held,
            frequency,
            vectors,
            positions=positions,
        )

    @property
    def empty(self) -> bool:
        return not self.passages and not self.faq

    def answer(
        self,
        question: str,
        confidence: float,
        debug: bool = False,
        encoder: PassageEncoder | None = None,
        any_language: bool = False,
    ) -> KnowledgeTurn:
        """The answer to `question`: an FAQ pair at or above `confidence`, else the best
        passage (by meaning too when the vectors are in and `encoder` is given), else
        none. `any_language`: the story answers questions in other languages."""
        pair = self._faq_answer(question, confidence)
        if pair is not None:
            return KnowledgeTurn(pair, threshold=confidence)
        if encoder is not None and self.vectors is not None:
            return self._meaning_answer(question, debug, encoder, any_language)
        return self._passage_answer(question, debug)

    def _faq_answer(self, question: str, confidence: float) -> KnowledgeAnswer | None:
        if self.faq_index is None:
            return None
        words = self.faq_index.analyser.words(question)
        found = self.faq_index.search([words], lambda _: True)
        if not found or found[0].score < confidence:
            return None
        pair, document_id = self.faq[found[0].interaction_id]
        return KnowledgeAnswer(
            citation=self.documents[document_id].citation,
            answer=pair.answer,
            passage=pair.answer,
            score=round(found[0].score, 4),
            passage_id=pair.id,
            question=pair.question,
        )

    def _passage_answer(self, question: str, debug: bool) -> KnowledgeTurn:
        said = question_terms(self.language, question)
        if self.bm25 is None or not said:
            return KnowledgeTurn(None, threshold=REFUSAL)
        scores = self.bm25.get_scores(list(said))
        best = np.argsort(-scores, kind="stable")[:CANDIDATES]
        weights = self.weights(said)
        ranked = []
        for position in best:
            if scores[position] <= 0:
                break
            passage = self.passages[int(position)]
            ranked.append(
                RankedPassage(
                    passage_id=passage.id,
                    document_id=passage.document_id,
                    text=passage.text,
                    score=round(float(scores[position]), 4),
                    lexical=round(coverage(weights, self.terms[int(position)]), 4),
                )
            )
        shown = tuple(ranked) if debug else ()
        if not ranked or ranked[0].lexical < REFUSAL:
            return KnowledgeTurn(None, shown, REFUSAL)
        top = ranked[0]
        passage = self.passages[self.positions[top.passage_id]]
        answer = KnowledgeAnswer(
            citation=self.cited(passage),
            answer=answer_sentence(passage, self.language, weights),
            passage=one_line(passage.text),
            score=top.lexical,
            passage_id=passage.id,
        )
        return KnowledgeTurn(answer, shown, REFUSAL)

    def _meaning_answer(
        self, question: str, debug: bool, encoder: PassageEncoder, any_language: bool
    ) -> KnowledgeTurn:
        assert self.vectors is not None and self.bm25 is not None
        blend = self.blend
        asked = encoder.question(question)
        cosines = self.vectors @ asked
        foreign = any_language and written_in(question) not in (None, LANGUAGE_TAGS[self.language])
        said = {} if foreign else question_terms(self.language, question)
        scores = self.bm25.get_scores(list(said)) if said else np.zeros(len(self.passages))
        candidates = _best(cosines, CANDIDATES) | {
            p for p in _best(scores, CANDIDATES) if scores[p] > 0
        }
        share = 0.0 if foreign else blend.share
        best_bm25 = max(float(scores[p]) for p in candidates)
        weights = self.weights(said)
        ranked = []
        for position in candidates:
            relevance = float(scores[position]) / best_bm25 if best_bm25 > 0 else 0.0
            cosine = float(cosines[position])
            passage = self.passages[position]
            ranked.append(
                RankedPassage(
                    passage_id=passage.id,
                    document_id=passage.document_id,
                    text=passage.text,
                    score=round(share * relevance + (1 - share) * cosine, 4),
                    lexical=round(coverage(weights, self.terms[position]), 4),
                    meaning=round(cosine, 4),
                )
            )
        ranked.sort(key=lambda r: -r.score)
        threshold = blend.foreign_refusal if foreign else blend.refusal_of(self.language)
        top = ranked[0]
        held = share * top.lexical + (1 - share) * (top.meaning or 0.0)
        shown = tuple(ranked) if debug else ()
        if held < threshold:
            return KnowledgeTurn(None, shown, threshold)
        passage = self.passages[self.positions[top.passage_id]]
        answer = KnowledgeAnswer(
            citation=self.cited(passage),
            answer=answer_sentence(
                passage, self.language, weights, closest_sentence(encoder, asked)
            ),
            passage=one_line(passage.text),
            score=round(held, 4),
            passage_id=passage.id,
        )
        return KnowledgeTurn(answer, shown, threshold)

    def weights(self, said: Mapping[str, float]) -> dict[str, float]:
        """Each term's inverse document frequency over the passages (a term no passage
        has weighs most) times what its word says in the language (terms.py)."""
        count = max(len(self.passages), FEWEST_PASSAGES)
        weights = {}
        for term, in_language in said.items():
            frequency = self.document_frequency.get(term, 0)
            weights[term] = in_language * math.log(
                1 + (count - frequency + 0.5) / (frequency + 0.5)
            )
        return weights

    def passage(self, passage_id: str) -> Passage | None:
        position = self.positions.get(passage_id)
        return None if position is None else self.passages[position]

    def cited(self, passage: Passage) -> Citation:
        """Where the passage stands: its document, heading path and page."""
        citation = self.documents[passage.document_id].citation
        return Citation(
            document_id=citation.document_id,
            title=citation.title,
            heading=passage.heading,
            page=passage.page,
            url=citation.url,
        )


def _best(scores: npt.NDArray[np.floating[Any]], count: int) -> set[int]:
    """The positions of the `count` highest scores."""
    if len(scores) <= count:
        return set(range(len(scores)))
    return {int(p) for p in np.argpartition(-scores, count)[:count]}


def passage_terms(language: str, passage: Passage, title: str) -> tuple[str, ...]:
    """The terms a passage is found by: its document's title's, its heading's, its own."""
    return tuple(terms_of(language, " ".join((title, *passage.heading, passage.text))))
