"""Interactions' phrases as compact arrays, the storage of the lexical index.

A segment holds a group of interactions: one sparse row of weighed terms per phrase,
one per interaction for its centroid (and the same transposed, to find the interactions
a term occurs in), and each phrase's text hash for exact look-ups. Terms are numbered
by the index's vocabulary, which only grows, so a segment built earlier reads a query
vector cut to its own width. A segment never changes once built.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy import sparse

Ids = npt.NDArray[np.int32]
Weights = npt.NDArray[np.float32]


@dataclass
class Reading:
    """Interactions' phrases read into term ids (`MatchIndex.read`), not yet a segment:
    `term_counts` of its `term_ids` and `lengths` is what `Segment.build` weighs."""

    ids: list[str] = field(default_factory=list)
    sources: list[list[str]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    term_ids: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    """Each phrase's number of terms, in the order of `term_ids`."""
    terms_of: dict[str, list[int]] = field(default_factory=dict)
    """Word -> its term ids, as numbered once."""


@dataclass(frozen=True)
class Query:
    """A message's terms weighed against the index (`MatchIndex`), as dense vectors over
    its terms, read against each segment."""

    terms: Ids
    weights: Weights
    full: Weights
    distinctive: Weights
    """Only the terms fewer than `Scoring.common_phrase_share` of the phrases use."""


@dataclass(frozen=True, eq=False)
class Segment:
    """Compared by identity: the index asks whether an interaction's row is in this one."""

    ids: tuple[str, ...]
    """Interaction ids, in row order."""
    sources: tuple[tuple[str, ...], ...]
    """Each interaction's phrases as written (those with words), in row order."""
    starts: Ids
    """The phrase rows of interaction `n` are `starts[n]` up to `starts[n + 1]`."""
    phrases: sparse.csr_matrix
    """phrases × terms: each phrase's unit tf-idf vector."""
    centroids: sparse.csr_matrix
    """interactions × terms: each interaction's unit centroid."""
    by_term: sparse.csr_matrix
    """terms × interactions: `centroids` transposed, to look up by term."""
    hashes: npt.NDArray[np.int64]
    """hash() of each phrase's text, sorted; `hashed_rows` holds their rows."""
    hashed_rows: Ids

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        sources: Sequence[Sequence[str]],
        texts: Sequence[str],
        counts: sparse.csr_matrix,
        weights: Weights,
    ) -> "Segment":
        """`sources` holds each interaction's phrases and `texts` every phrase's text, in
        the order of the rows of `counts` (`term_counts`); `weights` is the inverse
        document frequency of every term id."""
        lengths = [len(s) for s in sources]
        starts = np.zeros(len(ids) + 1, np.int32)
        np.cumsum(lengths, out=starts[1:])
        phrases = counts.copy()
        phrases.data = ((1 + np.log(phrases.data)) * weights[phrases.indices]).astype(np.float32)
        _normalize_rows(phrases)
        owners = np.repeat(np.arange(len(ids), dtype=np.int32), lengths)
        grouping = sparse.csr_matrix(
            (np.ones(len(owners), np.float32), (owners, np.arange(len(owners)))),
            shape=(len(ids), len(owners)),
        )
        centroids = sparse.csr_matrix(grouping @ phrases, dtype=np.float32)
        _normalize_rows(centroids)
        hashes = np.array([hash(t) for t in texts], np.int64)
        order = np.argsort(hashes, kind="stable").astype(np.int32)
        return cls(
            ids=tuple(ids),
            sources=tuple(tuple(s) for s in sources),
            starts=starts,
            phrases=phrases,
            centroids=centroids,
            by_term=sparse.csr_matrix(centroids.T),
            hashes=hashes[order],
            hashed_rows=order,
        )

    @property
    def nbytes(self) -> int:
        matrices = (self.phrases, self.centroids, self.by_term)
        arrays: int = sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes for m in matrices)
        return arrays + self.starts.nbytes + self.hashes.nbytes + self.hashed_rows.nbytes

    def phrase_terms(self, row: int) -> Ids:
        """The term ids of interaction `row`'s phrases, once per phrase using each."""
        matrix = self.phrases
        indptr = matrix.indptr
        start, end = indptr[self.starts[row]], indptr[self.starts[row + 1]]
        ids: Ids = matrix.indices[start:end]
        return ids

    def centroid_terms(self, row: int) -> Ids:
        matrix = self.centroids
        ids: Ids = matrix.indices[matrix.indptr[row] : matrix.indptr[row + 1]]
        return ids

    def shortlist(self, terms: Ids, weights: Weights) -> Weights:
        """Every interaction's centroid score over these terms alone (0 for those with
        none of them). Read from `by_term`'s arrays and added up term by term in float32,
        as scipy's product of the picked rows did, to the same bits: picking the rows
        through scipy took 110 µs of a 560 µs turn on the HWU64 story, this 20 µs."""
        inside = terms < self.by_term.shape[0]
        terms, weights = terms[inside], weights[inside]
        matrix = self.by_term
        starts, ends = matrix.indptr[terms], matrix.indptr[terms + 1]
        lengths = ends - starts
        positions = np.arange(int(lengths.sum())) + np.repeat(
            starts - (np.cumsum(lengths) - lengths), lengths
        )
        scores: Weights = np.zeros(matrix.shape[1], np.float32)
        np.add.at(
            scores, matrix.indices[positions], matrix.data[positions] * np.repeat(weights, lengths)
        )
        return scores

    def centroid_score(self, row: int, query: Weights) -> float:
        """The interaction's centroid score for the (dense) query, of the index's terms:
        those added since this segment was built are not in it."""
        matrix = self.centroids
        start, end = matrix.indptr[row], matrix.indptr[row + 1]
        return float(matrix.data[start:end] @ self._fitted(query)[matrix.indices[start:end]])

    def closest(self, row: int, query: Weights) -> tuple[float, int]:
        """The interaction's best phrase score for the (dense) query, and that phrase's
        place among its phrases."""
        query = self._fitted(query)
        matrix = self.phrases
        first, last = self.starts[row], self.starts[row + 1]
        bounds = matrix.indptr[first : last + 1]
        start, end = bounds[0], bounds[-1]
        values = matrix.data[start:end] * query[matrix.indices[start:end]]
        by_phrase = np.add.reduceat(values, bounds[:-1] - start)
        best = int(np.argmax(by_phrase))
        return float(by_phrase[best]), best

    def _fitted(self, query: Weights) -> Weights:
        """The query cut to the terms the segment was built with (later ones are new)."""
        return query[: self.phrases.shape[1]]

    def said_exactly(self, text: str) -> Iterable[tuple[int, int]]:
        """(interaction row, phrase place) of the phrases whose text may be `text` (a
        hash match: the caller compares the text)."""
        key = hash(text)
        low = int(np.searchsorted(self.hashes, key, side="left"))
        high = int(np.searchsorted(self.hashes, key, side="right"))
        for phrase_row in self.hashed_rows[low:high]:
            row = int(np.searchsorted(self.starts, phrase_row, side="right")) - 1
            yield row, int(phrase_row - self.starts[row])


def term_counts(term_ids: Sequence[int], lengths: Sequence[int], width: int) -> sparse.csr_matrix:
    """phrases × terms: how often each phrase uses each term, from the term ids of every
    phrase in turn (`lengths[n]` of them for phrase `n`)."""
    rows = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
    columns = np.asarray(term_ids, np.int32)
    counts = sparse.csr_matrix(
        (np.ones(len(columns), np.float32), (rows, columns)), shape=(len(lengths), width)
    )
    counts.sum_duplicates()
    return counts


def _normalize_rows(matrix: sparse.csr_matrix) -> None:
    lengths = np.diff(matrix.indptr)
    squares = np.zeros(matrix.shape[0], np.float32)
    filled = lengths > 0
    squares[filled] = np.add.reduceat(matrix.data**2, matrix.indptr[:-1][filled])
    norms = np.sqrt(squares)
    norms[norms == 0] = 1
    matrix.data = (matrix.data / np.repeat(norms, lengths)).astype(np.float32)
