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
"""

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import bm25s
import numpy as np

from bot_api.domain.knowledge import Citation, KnowledgeAnswer, KnowledgeTurn, RankedPassage
from bot_api.engine.matching import MatchIndex
from bot_api.knowledge.answer import answer_sentence
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
        if passages:
            bm25 = bm25s.BM25(k1=K1, b=B)
            bm25.index(corpus, show_progress=False)
        return cls(language, by_id, passages, faq, faq_index, bm25, held, frequency)

    @property
    def empty(self) -> bool:
        return not self.passages and not self.faq

    def answer(self, question: str, confidence: float, debug: bool = False) -> KnowledgeTurn:
        """The answer to `question`: an FAQ pair at or above `confidence`, else the best
        passage holding `REFUSAL` of its term weight, else none."""
        pair = self._faq_answer(question, confidence)
        if pair is not None:
            return KnowledgeTurn(pair, threshold=confidence)
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
        passage = next(p for p in self.passages if p.id == top.passage_id)
        answer = KnowledgeAnswer(
            citation=self._cited(passage),
            answer=answer_sentence(passage, self.language, weights),
            passage=one_line(passage.text),
            score=top.lexical,
            passage_id=passage.id,
        )
        return KnowledgeTurn(answer, shown, REFUSAL)

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

    def _cited(self, passage: Passage) -> Citation:
        citation = self.documents[passage.document_id].citation
        return Citation(
            document_id=citation.document_id,
            title=citation.title,
            heading=passage.heading,
            page=passage.page,
            url=citation.url,
        )


def passage_terms(language: str, passage: Passage, title: str) -> tuple[str, ...]:
    """The terms a passage is found by: its document's title's, its heading's, its own."""
    return tuple(terms_of(language, " ".join((title, *passage.heading, passage.text))))
