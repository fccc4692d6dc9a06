"""Scoring what a user said against a story's user-says phrases, with no training step.

Each phrase becomes a vector of terms weighted by inverse document frequency (and, in a
small story, by how common each is in the language: engine/language_weights.py): its
word stems, and the pieces of its words (four letters; characters in Chinese and
Japanese), which catch what stemming misses: other word forms, compounds, typos (how a
language's text becomes them: engine/analysis.py; a phrase as read: engine/phrases.py).
An interaction is represented by the centroid of its phrase vectors (a Rocchio
classifier) and by its phrases themselves; its score blends the query's cosine with the
centroid and with its closest phrase, calibrated so that the default confidence, 0.5,
sits below nearly every right match (engine/scoring.py: the numbers are given to each
search). A phrase said exactly scores 1; stems the story never uses are typos to correct
(engine/typos.py).

The index is held in compact arrays (`engine/segments.py`): a base segment built with
the index, and a recent one holding the interactions edited since. An index is a value:
`updated` returns a new index whose recent segment is built anew from the edited
interactions (weighed with the document frequencies in force), sharing the base with
the old index, which stays valid for whoever still reads it; the base rows of edited or
removed interactions are masked out. Once edits since the last full build exceed a
tenth of the phrases, the whole index is built again, so weights never drift far (and
small stories are always exact).
"""

import copy
import math
from array import array
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from bot_api.engine.analysis import analyser
from bot_api.engine.language_weights import language_share, language_weights
from bot_api.engine.phrases import PIECE_MARK, SLOT_MARK, compile_phrase, word_terms
from bot_api.engine.scoring import SCORING, Scored, Scoring, blend, calibrated
from bot_api.engine.segments import Query, Reading, Segment, term_counts
from bot_api.engine.typos import Corrector

REWEIGH_AFTER_SHARE = 0.1
"""Edits since the last full build, as a share of the phrases, that build it again."""
BYTES_PER_VOCABULARY_TERM = 150
"""A term's string and dictionary entry, with its typo-index share (tracemalloc)."""
BYTES_PER_PHRASE = 16
"""A phrase's place in its interaction's tuple of sources, and its word counts' share."""


class MatchIndex:
    def __init__(self, language: str = "english") -> None:
        """An empty index; `build` and `updated` make the ones worth searching."""
        self.language = language
        self.analyser = analyser(language)
        self._vocabulary: dict[str, int] = {}
        """Term -> term id; it only grows until the next full build."""
        self._in_language = language_weights(language)
        self._language_weights = array("f")
        """Each term id's weight in the language (engine/language_weights.py)."""
        self._frequency: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        """Phrases using each term."""
        self._centroid_frequency: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        """Interactions whose centroid has each term."""
        self._phrase_count = 0
        self._base: Segment | None = None
        self._base_alive: npt.NDArray[np.bool_] = np.zeros(0, np.bool_)
        self._recent: Segment | None = None
        self._where: dict[str, tuple[Segment, int]] = {}
        """Interaction id -> its segment and row."""
        self._changed_since_weighing = 0
        self._word_counts: dict[str, int] = {}
        self._corrector: Corrector | None = None

    @classmethod
    def build(
        cls, user_says: Mapping[str, Sequence[str]], language: str = "english"
    ) -> "MatchIndex":
        """The index of each interaction's user-says phrases, read as `language` is
        (engine/analysis.py)."""
        index = cls(language)
        index._base = index._segment(user_says)
        index._base_alive = np.ones(len(index._base.ids), np.bool_)
        index.corrector()
        return index

    def updated(
        self, put: Mapping[str, Sequence[str]], removed: Iterable[str] = ()
    ) -> "MatchIndex":
        """A new index with the `put` interactions' phrases (replacing any they had) and
        without the `removed` ones. This index is left as it was: the base segment is
        shared, everything the edit changes is copied."""
        index = copy.copy(self)
        index._vocabulary = dict(self._vocabulary)
        index._language_weights = array("f", self._language_weights)
        index._frequency = self._frequency.copy()
        index._centroid_frequency = self._centroid_frequency.copy()
        index._base_alive = self._base_alive.copy()
        index._where = dict(self._where)
        index._word_counts = dict(self._word_counts)
        index._corrector = None
        for interaction_id in [*removed, *put]:
            index._changed_since_weighing += index._forget(interaction_id)
        carried = {}
        if self._recent is not None:
            carried = {
                i: sources
                for i, sources in zip(self._recent.ids, self._recent.sources, strict=True)
                if i in index._where
            }
            for interaction_id in carried:
                index._forget(interaction_id)
        index._recent = index._segment({**carried, **put})
        index._changed_since_weighing += sum(map(len, put.values()))
        if index._changed_since_weighing > REWEIGH_AFTER_SHARE * index._phrase_count:
            return MatchIndex.build(index._all_sources(), index.language)
        index.corrector()
        return index

    def terms(self, words: Sequence[str]) -> list[str]:
        """Stems of the words and their pieces; slot words stay as they are."""
        terms: list[str] = []
        for word in words:
            if word.startswith(SLOT_MARK):
                terms.append(word)
                continue
            terms.extend(word_terms(self.analyser, word))
        return terms

    def size_estimate(self) -> int:
        """The bytes this index holds: its arrays, and an estimate of its dictionaries."""
        segments = sum(s.nbytes for s in (self._base, self._recent) if s is not None)
        arrays = self._frequency.nbytes + self._centroid_frequency.nbytes
        arrays += self._language_weights.itemsize * len(self._language_weights)
        dictionaries = BYTES_PER_VOCABULARY_TERM * (len(self._vocabulary) + len(self._word_counts))
        return segments + arrays + dictionaries + BYTES_PER_PHRASE * self._phrase_count

    def known_words(self) -> Container[str]:
        """Words the story's phrases use: these are never taken for typos of entity values."""
        return self._word_counts.keys()

    def weight(self, term: str) -> float:
        """The term's inverse document frequency, times its weight in the language as
        much as the story is small (engine/language_weights.py)."""
        idf = math.log(1 + (self._phrase_count + 1) / (self._frequency_of(term) + 1))
        in_language = self._in_language.get(term, 1.0)
        return idf * math.pow(in_language, language_share(self._phrase_count))

    def corrector(self) -> Corrector:
        """The stems the story uses, indexed for typo look-ups (made with the index, in
        the compiling worker)."""
        if self._corrector is None:
            self._corrector = Corrector(
                t
                for t, n in self._vocabulary.items()
                if t[0] not in (PIECE_MARK, SLOT_MARK) and self._frequency[n]
            )
        return self._corrector

    def search(
        self,
        variants: Sequence[Sequence[str]],
        eligible: Callable[[str], bool],
        every_candidate: bool = False,
        scoring: Scoring = SCORING,
    ) -> list[Scored]:
        """Eligible interactions worth considering, best first, for the query's word
        variants (the words as said, and with recognised entity values as slot words).

        The best (and any tied with it) are always exact; a candidate that cannot reach
        them is left out unless `every_candidate` (to explain a decision)."""
        best: dict[str, Scored] = {}
        for words in variants:
            floor = max((s.score for s in best.values()), default=0.0)
            for scored in self._search_one(words, eligible, floor, every_candidate, scoring):
                known = best.get(scored.interaction_id)
                if known is None or scored.score > known.score:
                    best[scored.interaction_id] = scored
        return sorted(best.values(), key=lambda s: -s.score)

    def _search_one(
        self,
        words: Sequence[str],
        eligible: Callable[[str], bool],
        floor: float,
        every_candidate: bool,
        scoring: Scoring,
    ) -> list[Scored]:
        exact = {i: s for i, s in self._said_exactly(" ".join(words)).items() if eligible(i)}
        if exact and not every_candidate:
            return list(exact.values())
        query = self._query(words, scoring)
        by_centroid = sorted(
            (
                (self._centroid_score(i, query), i)
                for i in self._candidates(query, eligible, scoring)
                if i not in exact
            ),
            reverse=True,
        )
        results = list(exact.values())
        for centroid, interaction_id in by_centroid:
            reachable = calibrated(blend(centroid, 1.0, scoring), scoring.calibration_knee)
            if not every_candidate and reachable < floor:
                continue
            scored = self._closest(interaction_id, centroid, query, scoring)
            floor = max(floor, scored.score)
            results.append(scored)
        return results

    def score_each(
        self,
        variants: Sequence[Sequence[str]],
        interaction_ids: Iterable[str],
        scoring: Scoring = SCORING,
    ) -> dict[str, Scored]:
        """Each interaction's lexical score (its best over the word variants), whether or
        not it is among the search's candidates."""
        wanted = [i for i in interaction_ids if i in self._where]
        best: dict[str, Scored] = {}
        for words in variants:
            exact = self._said_exactly(" ".join(words))
            query = self._query(words, scoring)
            for interaction_id in wanted:
                scored = exact.get(interaction_id) or self._closest(
                    interaction_id, self._centroid_score(interaction_id, query), query, scoring
                )
                known = best.get(interaction_id)
                if known is None or scored.score > known.score:
                    best[interaction_id] = scored
        return best

    def _frequency_of(self, term: str) -> int:
        term_id = self._vocabulary.get(term)
        return 0 if term_id is None else int(self._frequency[term_id])

    def _query(self, words: Sequence[str], scoring: Scoring) -> Query:
        counts = Counter(self.corrector().corrected(self.terms(words), self._frequency_of))
        weighed = {t: (1 + math.log(count)) * self.weight(t) for t, count in counts.items()}
        norm = math.sqrt(sum(w * w for w in weighed.values())) or 1.0
        vocabulary = self._vocabulary
        known = [(vocabulary[t], w / norm) for t, w in weighed.items() if t in vocabulary]
        terms = np.array([t for t, _ in known], np.int32)
        weights = np.array([w for _, w in known], np.float32)
        full = np.zeros(len(self._vocabulary), np.float32)
        full[terms] = weights
        distinctive = full.copy()
        distinctive[
            terms[self._frequency[terms] > scoring.common_phrase_share * self._phrase_count]
        ] = 0
        return Query(terms, weights, full, distinctive)

    def _said_exactly(self, text: str) -> dict[str, Scored]:
        """The interactions with a phrase said exactly as `text`, scoring 1."""
        found: dict[str, Scored] = {}
        for segment in (self._base, self._recent):
            if segment is None:
                continue
            for row, place in segment.said_exactly(text):
                interaction_id = segment.ids[row]
                if self._where.get(interaction_id) != (segment, row):
                    continue
                phrase = compile_phrase(segment.sources[row][place], self.analyser)
                if phrase.text == text and interaction_id not in found:
                    found[interaction_id] = Scored(interaction_id, 1.0, phrase, 1.0, 1.0)
        return found

    def _candidates(
        self, query: Query, eligible: Callable[[str], bool], scoring: Scoring
    ) -> list[str]:
        """The eligible interactions closest to the query's centroid score, found through
        its selective terms: a term most interactions share adds about the same to each of
        them, so it is left out of the search (never out of the score)."""
        common = max(scoring.selective_postings, len(self._where) // 10)
        selective = self._centroid_frequency[query.terms] <= common
        if not selective.any():
            selective[:] = True
        terms, weights = query.terms[selective], query.weights[selective]
        scores: list[npt.NDArray[np.float32]] = []
        owners: list[tuple[str, ...]] = []
        for segment in (self._base, self._recent):
            if segment is None:
                continue
            shortlist = segment.shortlist(terms, weights)
            if segment is self._base:
                shortlist[~self._base_alive] = 0
            scores.append(shortlist)
            owners.append(segment.ids)
        together = np.concatenate(scores) if scores else np.zeros(0, np.float32)
        ids = [i for segment_ids in owners for i in segment_ids]
        found: list[str] = []
        for position in np.argsort(-together, kind="stable"):
            if together[position] <= 0 or len(found) == scoring.lexical_candidates:
                break
            if eligible(ids[position]):
                found.append(ids[position])
        return found

    def _centroid_score(self, interaction_id: str, query: Query) -> float:
        segment, row = self._where[interaction_id]
        return segment.centroid_score(row, query.full)

    def _closest(
        self, interaction_id: str, centroid: float, query: Query, scoring: Scoring
    ) -> Scored:
        segment, row = self._where[interaction_id]
        closest, place = segment.closest(row, query.distinctive)
        phrase = compile_phrase(segment.sources[row][place], self.analyser)
        score = calibrated(blend(centroid, closest, scoring), scoring.calibration_knee)
        return Scored(interaction_id, score, phrase, centroid, closest)

    def _segment(self, user_says: Mapping[str, Sequence[str]]) -> Segment:
        """A segment of these interactions, their terms counted in this index."""
        reading = Reading()
        self.read(user_says, reading)
        return self._segment_of(reading)

    def read(self, user_says: Mapping[str, Sequence[str]], reading: Reading) -> None:
        """These interactions' phrases read into `reading`, their terms numbered in this
        index's vocabulary: the phrase-by-phrase part of a build (nearly all its time)."""
        for interaction_id, said in user_says.items():
            phrases = [p for p in (compile_phrase(s, self.analyser) for s in said) if p.words]
            if not phrases:
                continue
            reading.ids.append(interaction_id)
            reading.sources.append([p.source for p in phrases])
            for phrase in phrases:
                reading.texts.append(phrase.text)
                start = len(reading.term_ids)
                for word in phrase.words:
                    self._word_counts[word] = self._word_counts.get(word, 0) + 1
                    known = reading.terms_of.get(word)
                    if known is None:
                        known = [self._term_id(t) for t in self.terms([word])]
                        reading.terms_of[word] = known
                    reading.term_ids.extend(known)
                reading.lengths.append(len(reading.term_ids) - start)

    def with_reading(self, reading: Reading) -> "MatchIndex":
        """A new index of what `reading` holds, read by this one (`read`), which goes on
        reading into both undisturbed: the index sees only what was read so far."""
        index = MatchIndex(self.language)
        index._vocabulary = dict(self._vocabulary)
        index._language_weights = array("f", self._language_weights)
        index._word_counts = dict(self._word_counts)
        index._base = index._segment_of(reading)
        index._base_alive = np.ones(len(index._base.ids), np.bool_)
        index.corrector()
        return index

    def _segment_of(self, reading: Reading) -> Segment:
        width = len(self._vocabulary)
        self._frequency = np.pad(self._frequency, (0, width - len(self._frequency)))
        self._centroid_frequency = np.pad(
            self._centroid_frequency, (0, width - len(self._centroid_frequency))
        )
        counts = term_counts(reading.term_ids, reading.lengths, width)
        self._frequency += np.bincount(counts.indices, minlength=width).astype(np.int32)
        self._phrase_count += len(reading.lengths)
        idf = np.log(1 + (self._phrase_count + 1) / (self._frequency + 1))
        in_language = np.array(self._language_weights, np.float32)
        weights = (idf * in_language ** language_share(self._phrase_count)).astype(np.float32)
        segment = Segment.build(reading.ids, reading.sources, reading.texts, counts, weights)
        self._centroid_frequency += np.bincount(segment.centroids.indices, minlength=width).astype(
            np.int32
        )
        for row, interaction_id in enumerate(reading.ids):
            self._where[interaction_id] = (segment, row)
        return segment

    def _term_id(self, term: str) -> int:
        if term not in self._vocabulary:
            self._language_weights.append(self._in_language.get(term, 1.0))
            self._vocabulary[term] = len(self._vocabulary)
        return self._vocabulary[term]

    def _forget(self, interaction_id: str) -> int:
        """Take the interaction out of the counts (and mask its base row); its phrase
        count."""
        place = self._where.pop(interaction_id, None)
        if place is None:
            return 0
        segment, row = place
        width = len(self._frequency)
        self._frequency -= np.bincount(segment.phrase_terms(row), minlength=width).astype(np.int32)
        self._centroid_frequency -= np.bincount(
            segment.centroid_terms(row), minlength=width
        ).astype(np.int32)
        for source in segment.sources[row]:
            for word in compile_phrase(source, self.analyser).words:
                self._word_counts[word] -= 1
                if not self._word_counts[word]:
                    del self._word_counts[word]
        if segment is self._base:
            self._base_alive[row] = False
        phrases = len(segment.sources[row])
        self._phrase_count -= phrases
        return phrases

    def _all_sources(self) -> dict[str, tuple[str, ...]]:
        return {i: segment.sources[row] for i, (segment, row) in self._where.items()}
