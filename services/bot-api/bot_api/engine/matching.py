"""Scoring what a user said against a story's user-says phrases, with no training step.

Each phrase becomes a vector of terms weighted by inverse document frequency: its
word stems, and the four-letter pieces of its words (which catch what stemming misses:
other word forms, compounds, typos). `{{entity:alias}}` slots become a term `@entity`.
An interaction is represented by the centroid of its phrase vectors (a Rocchio
classifier) and by its phrases themselves; its score blends the query's cosine with the
centroid and with its closest phrase. A phrase said exactly scores 1.

The blend is calibrated so that the default confidence, 0.5, sits below nearly every
right match: on the public intent data of docs/benchmarks.md right best matches blend
above 0.1 (nine in ten above 0.2), so 0.1 maps to 0.5, linearly below and above (the
ranking is unchanged).

An index is a value: `updated` returns a new index in which only the edited
interactions are re-weighed (with the document frequencies in force), sharing what did
not change with the old one, which stays valid for whoever still reads it. Once edits
since the last full weighing exceed a tenth of the phrases, every interaction is weighed
again, so weights never drift far (and small stories are always exact).
"""

import copy
import math
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import Stemmer

from bot_api.domain.interactions import ENTITY_SLOT
from bot_api.engine.text import tokens
from bot_api.engine.typos import MAX_LOOKUPS_PER_MESSAGE, TypoIndex, may_be_typo

SLOT_MARK = "@"
CENTROID_SHARE = 0.8
CALIBRATION_KNEE = 0.10
PIECE_LENGTH = 4
PIECE_MARK = "#"
CANDIDATES = 4
SELECTIVE_POSTINGS = 16
COMMON_PHRASE_SHARE = 0.3
MAX_CORRECTIONS = 10_000
REWEIGH_AFTER_SHARE = 0.1
BYTES_PER_TERM = 250
BYTES_PER_PHRASE = 200
BYTES_PER_VOCABULARY_TERM = 500

Vector = dict[str, float]


@dataclass(frozen=True)
class Phrase:
    """A user-says phrase as matched: its words, and its slots in order."""

    source: str
    words: tuple[str, ...]
    slots: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class Scored:
    interaction_id: str
    score: float
    phrase: Phrase
    centroid: float
    closest: float
    lexical: float | None = None
    """With the semantic stage: the lexical score alone (as calibrated here)."""
    semantic: float | None = None
    """With the semantic stage: the semantic similarity, None without the phrase vectors."""

    @property
    def blend(self) -> float:
        """The lexical similarity before calibration."""
        return CENTROID_SHARE * self.centroid + (1 - CENTROID_SHARE) * self.closest


@dataclass(frozen=True)
class _Interaction:
    phrases: list[Phrase]
    terms: list[dict[str, int]]
    postings: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    centroid: Vector = field(default_factory=dict)


def slot_word(entity: str) -> str:
    return SLOT_MARK + entity


def compile_phrase(source: str) -> Phrase:
    words: list[str] = []
    slots: list[tuple[str, str]] = []
    position = 0
    for match in ENTITY_SLOT.finditer(source):
        words.extend(tokens(source[position : match.start()]))
        words.append(slot_word(match.group(1)))
        slots.append((match.group(1), match.group(2)))
        position = match.end()
    words.extend(tokens(source[position:]))
    return Phrase(source, tuple(words), tuple(slots))


def _normalized(vector: Vector) -> Vector:
    norm = math.sqrt(sum(w * w for w in vector.values()))
    return {t: w / norm for t, w in vector.items()} if norm else {}


class MatchIndex:
    def __init__(self, language: str = "english") -> None:
        """An empty index; `build` and `updated` make the ones worth searching."""
        self.language = language
        self._stemmer = Stemmer.Stemmer(language)
        self._interactions: dict[str, _Interaction] = {}
        self._document_frequency: dict[str, int] = {}
        self._phrase_count = 0
        self._term_count = 0
        self._centroid_postings: dict[str, dict[str, float]] = {}
        self._owned_postings: set[str] = set()
        self._exact: dict[str, frozenset[str]] = {}
        self._changed_since_weighing = 0
        self._typos: TypoIndex | None = None
        self._corrections: dict[str, str] = {}
        self._word_counts: dict[str, int] = {}

    @classmethod
    def build(
        cls, user_says: Mapping[str, Sequence[str]], language: str = "english"
    ) -> "MatchIndex":
        """The index of each interaction's user-says phrases, stemmed for `language`."""
        index = cls(language)
        for interaction_id, phrases in user_says.items():
            index._put(interaction_id, phrases, weigh=False)
        index._weigh_all()
        index.typos()
        return index

    def updated(
        self, put: Mapping[str, Sequence[str]], removed: Iterable[str] = ()
    ) -> "MatchIndex":
        """A new index with the `put` interactions' phrases (replacing any they had) and
        without the `removed` ones. This index is left as it was: containers the edit
        touches are copied, the rest is shared."""
        index = copy.copy(self)
        index._interactions = dict(self._interactions)
        index._document_frequency = dict(self._document_frequency)
        index._centroid_postings = dict(self._centroid_postings)
        index._owned_postings = set()
        index._exact = dict(self._exact)
        index._word_counts = dict(self._word_counts)
        index._typos = None
        index._corrections = {}
        for interaction_id in removed:
            index._remove(interaction_id)
        for interaction_id, phrases in put.items():
            index._put(interaction_id, phrases, weigh=True)
        if index._changed_since_weighing > REWEIGH_AFTER_SHARE * index._phrase_count:
            index._weigh_all()
        index.typos()
        return index

    def terms(self, words: Sequence[str]) -> list[str]:
        """Stems of the words and their four-letter pieces; slot words stay as they are."""
        terms: list[str] = []
        for word in words:
            if word.startswith(SLOT_MARK):
                terms.append(word)
                continue
            terms.append(self._stemmer.stemWord(word))
            padded = f" {word} "
            terms.extend(
                PIECE_MARK + padded[i : i + PIECE_LENGTH]
                for i in range(max(1, len(padded) - PIECE_LENGTH + 1))
            )
        return terms

    def _put(self, interaction_id: str, user_says: Iterable[str], weigh: bool) -> None:
        self._remove(interaction_id)
        phrases = [p for p in map(compile_phrase, user_says) if p.words]
        if not phrases:
            return
        terms = [_counts(self.terms(phrase.words)) for phrase in phrases]
        entry = _Interaction(phrases, terms)
        self._interactions[interaction_id] = entry
        for phrase, counts in zip(phrases, terms, strict=True):
            self._exact[phrase.text] = self._exact.get(phrase.text, frozenset()) | {interaction_id}
            for word in phrase.words:
                self._word_counts[word] = self._word_counts.get(word, 0) + 1
            for term in counts:
                self._document_frequency[term] = self._document_frequency.get(term, 0) + 1
        self._phrase_count += len(phrases)
        self._term_count += sum(map(len, terms))
        self._changed_since_weighing += len(phrases)
        if weigh:
            self._weigh(interaction_id, entry)

    def _remove(self, interaction_id: str) -> None:
        entry = self._interactions.pop(interaction_id, None)
        if entry is None:
            return
        for phrase, counts in zip(entry.phrases, entry.terms, strict=True):
            holders = self._exact.get(phrase.text, frozenset()) - {interaction_id}
            if holders:
                self._exact[phrase.text] = holders
            else:
                self._exact.pop(phrase.text, None)  # gone already if said twice
            for word in phrase.words:
                self._word_counts[word] -= 1
                if not self._word_counts[word]:
                    del self._word_counts[word]
            for term in counts:
                self._document_frequency[term] -= 1
                if not self._document_frequency[term]:
                    del self._document_frequency[term]
        self._unpost(interaction_id, entry)
        self._phrase_count -= len(entry.phrases)
        self._term_count -= sum(map(len, entry.terms))
        self._changed_since_weighing += len(entry.phrases)

    def size_estimate(self) -> int:
        """Roughly the bytes this index holds: most of it is each phrase's terms, held
        three times over (its counts, the postings, the centroid)."""
        return (
            BYTES_PER_TERM * self._term_count
            + BYTES_PER_PHRASE * self._phrase_count
            + BYTES_PER_VOCABULARY_TERM * len(self._document_frequency)
        )

    def known_words(self) -> Container[str]:
        """Words the story's phrases use: these are never taken for typos of entity values."""
        return self._word_counts.keys()

    def weight(self, term: str) -> float:
        frequency = self._document_frequency.get(term, 0)
        return math.log(1 + (self._phrase_count + 1) / (frequency + 1))

    def corrected(self, terms: Sequence[str]) -> list[str]:
        """Stems the story never uses, replaced by the closest one it does (a typo).

        Word pieces and slot words are left alone: pieces already tolerate typos. At most
        `MAX_LOOKUPS_PER_MESSAGE` stems not seen before are looked up; the rest stay as
        said (their pieces still match).
        """
        result: list[str] = []
        looked_up = 0
        for term in terms:
            if (
                term in self._document_frequency
                or not may_be_typo(term)
                or term[0] in (PIECE_MARK, SLOT_MARK)
            ):
                result.append(term)
                continue
            if term not in self._corrections:
                if looked_up == MAX_LOOKUPS_PER_MESSAGE:
                    result.append(term)
                    continue
                looked_up += 1
                if len(self._corrections) >= MAX_CORRECTIONS:
                    self._corrections.clear()
                self._corrections[term] = self.typos().closest(term) or term
            result.append(self._corrections[term])
        return result

    def typos(self) -> TypoIndex:
        """The stems the story uses, indexed for typo look-ups (made with the index, in
        the compiling worker)."""
        if self._typos is None:
            self._typos = TypoIndex(
                t for t in self._document_frequency if t[0] not in (PIECE_MARK, SLOT_MARK)
            )
        return self._typos

    def search(
        self,
        variants: Sequence[Sequence[str]],
        eligible: Callable[[str], bool],
        every_candidate: bool = False,
    ) -> list[Scored]:
        """Eligible interactions worth considering, best first, for the query's word
        variants (the words as said, and with recognised entity values as slot words).

        The best (and any tied with it) are always exact; a candidate that cannot reach
        them is left out unless `every_candidate` (to explain a decision)."""
        best: dict[str, Scored] = {}
        for words in variants:
            floor = max((s.score for s in best.values()), default=0.0)
            for scored in self._search_one(words, eligible, floor, every_candidate):
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
    ) -> list[Scored]:
        text = " ".join(words)
        exact = {i for i in self._exact.get(text, ()) if eligible(i)}
        if exact and not every_candidate:
            return [self._exactly(i, text) for i in exact]
        query = self._vector(_counts(self.corrected(self.terms(words))))
        distinctive = self._distinctive(query)
        by_centroid = sorted(
            (
                (sum(w * self._interactions[i].centroid.get(t, 0.0) for t, w in query.items()), i)
                for i in self._candidates(query, eligible)
                if i not in exact
            ),
            reverse=True,
        )
        results = [self._exactly(i, text) for i in exact]
        for centroid, interaction_id in by_centroid:
            reachable = calibrated(CENTROID_SHARE * centroid + (1 - CENTROID_SHARE))
            if not every_candidate and reachable < floor:
                continue
            scored = self._closest(interaction_id, centroid, distinctive)
            floor = max(floor, scored.score)
            results.append(scored)
        return results

    def score_each(
        self, variants: Sequence[Sequence[str]], interaction_ids: Iterable[str]
    ) -> dict[str, Scored]:
        """Each interaction's lexical score (its best over the word variants), whether or
        not it is among the search's candidates."""
        wanted = [i for i in interaction_ids if i in self._interactions]
        best: dict[str, Scored] = {}
        for words in variants:
            text = " ".join(words)
            query = self._vector(_counts(self.corrected(self.terms(words))))
            distinctive = self._distinctive(query)
            for interaction_id in wanted:
                if interaction_id in self._exact.get(text, ()):
                    scored = self._exactly(interaction_id, text)
                else:
                    centroid_terms = self._interactions[interaction_id].centroid
                    centroid = sum(w * centroid_terms.get(t, 0.0) for t, w in query.items())
                    scored = self._closest(interaction_id, centroid, distinctive)
                known = best.get(interaction_id)
                if known is None or scored.score > known.score:
                    best[interaction_id] = scored
        return best

    def _distinctive(self, query: Vector) -> list[tuple[str, float]]:
        common = COMMON_PHRASE_SHARE * self._phrase_count
        return [(t, w) for t, w in query.items() if self._document_frequency.get(t, 0) <= common]

    def _closest(
        self, interaction_id: str, centroid: float, distinctive: Sequence[tuple[str, float]]
    ) -> Scored:
        entry = self._interactions[interaction_id]
        by_phrase = [0.0] * len(entry.phrases)
        for term, weight in distinctive:
            for index, value in entry.postings.get(term, ()):
                by_phrase[index] += weight * value
        closest = max(by_phrase)
        phrase = entry.phrases[by_phrase.index(closest)]
        score = calibrated(CENTROID_SHARE * centroid + (1 - CENTROID_SHARE) * closest)
        return Scored(interaction_id, score, phrase, centroid, closest)

    def _exactly(self, interaction_id: str, text: str) -> Scored:
        phrase = next(p for p in self._interactions[interaction_id].phrases if p.text == text)
        return Scored(interaction_id, 1.0, phrase, 1.0, 1.0)

    def _candidates(self, query: Vector, eligible: Callable[[str], bool]) -> list[str]:
        """The eligible interactions closest to the query's centroid score, found through
        its selective terms: a term most interactions share adds about the same to each of
        them, so it is left out of the search (never out of the score)."""
        common = max(SELECTIVE_POSTINGS, len(self._interactions) // 10)
        terms = [t for t in query if len(self._centroid_postings.get(t, ())) <= common]
        shortlist: dict[str, float] = {}
        for term in terms or query:
            weight = query[term]
            for interaction_id, value in self._centroid_postings.get(term, {}).items():
                shortlist[interaction_id] = shortlist.get(interaction_id, 0.0) + weight * value
        ranked = sorted(shortlist, key=shortlist.__getitem__, reverse=True)
        return [i for i in ranked if eligible(i)][:CANDIDATES]

    def _vector(self, counts: dict[str, int]) -> Vector:
        return _normalized(
            {term: (1 + math.log(count)) * self.weight(term) for term, count in counts.items()}
        )

    def _weigh(self, interaction_id: str, entry: _Interaction) -> None:
        """Store the interaction's entry weighed anew (a new entry: the old one may be
        shared with the index this one was updated from)."""
        self._unpost(interaction_id, entry)
        postings: dict[str, list[tuple[int, float]]] = {}
        centroid: Vector = {}
        for index, counts in enumerate(entry.terms):
            for term, weight in self._vector(counts).items():
                postings.setdefault(term, []).append((index, weight))
                centroid[term] = centroid.get(term, 0.0) + weight
        weighed = replace(entry, postings=postings, centroid=_normalized(centroid))
        self._interactions[interaction_id] = weighed
        for term, weight in weighed.centroid.items():
            self._own_postings(term)[interaction_id] = weight

    def _unpost(self, interaction_id: str, entry: _Interaction) -> None:
        for term in entry.centroid:
            postings = self._own_postings(term)
            del postings[interaction_id]
            if not postings:
                del self._centroid_postings[term]

    def _own_postings(self, term: str) -> dict[str, float]:
        """The term's centroid postings, safe to change: copied once if still shared with
        the index this one was updated from."""
        postings = self._centroid_postings.get(term)
        if postings is None or term not in self._owned_postings:
            postings = dict(postings or {})
            self._centroid_postings[term] = postings
            self._owned_postings.add(term)
        return postings

    def _weigh_all(self) -> None:
        for interaction_id, entry in list(self._interactions.items()):
            self._weigh(interaction_id, entry)
        self._changed_since_weighing = 0


def calibrated(blend: float, knee: float = CALIBRATION_KNEE) -> float:
    """The blended similarity on the 0..1 scale the confidence threshold reads: `knee`
    reads as 0.5, linear below and above."""
    blend = min(max(blend, 0.0), 1.0)
    if blend <= knee:
        return 0.5 * blend / knee
    return 0.5 + 0.5 * (blend - knee) / (1 - knee)


def _counts(terms: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for term in terms:
        counts[term] = counts.get(term, 0) + 1
    return counts
