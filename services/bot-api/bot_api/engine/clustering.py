"""The misses inbox's clusters: messages the bot did not understand, grouped by meaning.

Messages whose normalised text is the same (`engine.text.tokens`: case, accents,
punctuation and spacing do not matter) always count together. Those groups are then
taken biggest first; each joins the first (biggest) cluster whose leader is close
enough, or leads a new one:
- a group with a sentence vector (the semantic stage encoded the message while
  answering) joins a leader with a vector when their cosine is at least
  `SEMANTIC_SIMILARITY`;
- then a group without one joins a leader (of either kind) whose normalised text is at least
  `LEXICAL_SIMILARITY` alike (rapidfuzz's `ratio`: typos and small variants).

A cluster's id is a hash of its leader's normalised text, so it stays the same while
that text is still the most frequent of the biggest group: an action names the cluster
it was shown, and one that no longer exists is refused (docs/history.md).

When no two messages are alike, every group is compared with every leader before it:
50 million pairs for 10,000 turns. Both comparisons first bound a batch's pairs with one
BLAS product and compute only the pairs the bound lets through (`_Vectors`, `_Words`):
the result is the same as comparing every pair, in a third to a half of the time
(docs/benchmarks.md, "The misses inbox's clustering").
"""

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from itertools import chain
from typing import Protocol

import numpy as np
from rapidfuzz import fuzz, process
from threadpoolctl import threadpool_limits

from bot_api.engine.text import tokens

SEMANTIC_SIMILARITY = 0.6
"""all-MiniLM-L6-v2 cosines measured on support messages: paraphrases ("what time do you
open" / "what are your opening hours" 0.83, "can i get a refund" / "i want my money back"
0.63) score 0.62 to 0.83; related but different requests ("cancel my subscription" /
"upgrade my plan" 0.24, "refund" / "return an item" 0.43) 0.2 to 0.5."""
LEXICAL_SIMILARITY = 85.0
"""rapidfuzz `ratio` (0 to 100) of normalised texts: a typo or two in a short message
("where is my order" / "wher is my ordr" 94) joins, another request with words in
common ("where is my order" / "where is my parcel" 80) does not."""
EXAMPLES = 5
"""Distinct texts a cluster shows, most frequent first."""
BATCH = 256
"""Groups compared with the leaders at once (one matrix per batch)."""
HEAD = 0.625
"""The share of dimensions `_Vectors`' bound computes. On the bench's vectors (no two
alike), a half left 1 % of the pairs, whose gathering cost as much as the smaller
product saved (0.55 s in all); 5/8 left almost none (0.34 s)."""
FULL_BELOW = 0.02
"""Above this share of a batch's pairs left by a bound, the whole product (or scoring
every pair) is cheaper than computing them one by one: a gathered pair of vectors costs
about what 10 to 20 pairs of the product do."""
ROUNDING = 1e-4
"""Float32 rounding margin of `_Vectors`' bound, so that it never drops a pair whose
cosine reaches the threshold."""
BUCKETS = 128
"""Character classes of the words' bound (`_Words`): a code point's class is its value
modulo 128, so ASCII characters each have their own; others share, which only makes the
bound looser, never wrong."""


@dataclass(frozen=True)
class Miss:
    """An unresolved turn of the inbox: what the visitor said, when, and its vector."""

    turn_id: str
    text: str
    at: datetime
    vector: tuple[float, ...] | None = None
    expires_at: datetime | None = None
    """When its turn expires (the story's history retention): a snapshot of the inbox
    (inbox/snapshots.py) leaves it out from then on."""
    language: str | None = None
    """The ISO 639-1 code of the language its turn was read in; None in a story of one
    language (docs/languages.md)."""


@dataclass(frozen=True)
class Cluster:
    id: str
    count: int
    first: datetime
    last: datetime
    texts: tuple[str, ...]
    """Every distinct text of the cluster, most frequent first (the leader's first)."""
    members: tuple[Miss, ...]
    vector: tuple[float, ...] | None = None
    """The leader's sentence vector, if its turns have one."""

    @property
    def representative(self) -> str:
        return self.texts[0]

    @property
    def examples(self) -> tuple[str, ...]:
        return self.texts[:EXAMPLES]

    @property
    def languages(self) -> dict[str, int]:
        """How many of its turns were read in each language, the most first (then by
        code); empty when none records one (a story of one language)."""
        counts: dict[str, int] = {}
        for miss in self.members:
            if miss.language is not None:
                counts[miss.language] = counts.get(miss.language, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def normalised(text: str) -> str:
    return " ".join(tokens(text))


def cluster_id(text: str) -> str:
    """A stable id from a leader's text (16 hex digits, as safe in a URL as an ObjectId)."""
    return _key_id(normalised(text))


def _key_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class _Group:
    """The misses of one normalised text."""

    key: str
    misses: list[Miss]
    vector: tuple[float, ...] | None

    @cached_property
    def texts(self) -> list[tuple[str, int]]:
        if len(self.misses) == 1:  # most groups when no two messages are alike
            return [(self.misses[0].text, 1)]
        counts: dict[str, int] = {}
        for miss in self.misses:
            counts[miss.text] = counts.get(miss.text, 0) + 1
        return sorted(counts.items(), key=lambda item: -item[1])


def clusters(misses: Iterable[Miss]) -> list[Cluster]:
    """The misses grouped by meaning, the biggest cluster first (then the most recent).

    BLAS is held to one thread, so one clustering takes at most one core: on this 2-core
    machine shared with other work, the worst case's products took 2.1 to 6.2 s with
    BLAS's two threads (each waiting for the other's core) and 0.5 s with one."""
    groups = _groups(misses)
    with_vector = [i for i, g in enumerate(groups) if g.vector is not None]
    without = [i for i, g in enumerate(groups) if g.vector is None]
    leaders: list[int] = []
    with threadpool_limits(limits=1, user_api="blas"):
        leader_of = _assign(with_vector, leaders, _Vectors(groups, with_vector))
        if without:
            leader_of |= _assign(without, leaders, _Words(groups, [*leaders, *without]))
    members: dict[int, list[int]] = {leader: [] for leader in leaders}
    for group in range(len(groups)):
        members[leader_of[group]].append(group)
    found = [_cluster([groups[i] for i in members[leader]]) for leader in leaders]
    return sorted(found, key=lambda c: (-c.count, -c.last.timestamp(), c.id))


def _groups(misses: Iterable[Miss]) -> list[_Group]:
    """One group per normalised text, the biggest first (ties: the text, for a fixed order)."""
    by_key: dict[str, _Group] = {}
    for miss in misses:
        key = normalised(miss.text)
        if not key:
            continue
        group = by_key.get(key)
        if group is None:
            by_key[key] = _Group(key, [miss], miss.vector)
        else:
            group.misses.append(miss)
            if group.vector is None:
                group.vector = miss.vector
    return sorted(by_key.values(), key=lambda g: (-len(g.misses), g.key))


class _Comparison(Protocol):
    def lead(self, groups: Sequence[int]) -> None:
        """These groups lead clusters now, after those before."""

    def __call__(self, batch: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Whether each group of the batch is alike each leader, and each group of the
        batch (booleans)."""


def _assign(groups: Sequence[int], leaders: list[int], alike: _Comparison) -> dict[int, int]:
    """Each of `groups`' leader, taken in order, `BATCH` at a time: a group joins the
    first leader it is alike, or leads and is appended to `leaders`."""
    alike.lead(leaders)
    leader_of: dict[int, int] = {}
    for start in range(0, len(groups), BATCH):
        batch = groups[start : start + BATCH]
        by_leaders, within = alike(batch)
        found = by_leaders.any(axis=1)
        known = np.where(found, by_leaders.argmax(axis=1) if leaders else 0, -1).tolist()
        earlier: np.ndarray = np.tril(within, -1)
        any_earlier = np.any(earlier, axis=1).tolist()
        leading = np.zeros(len(batch), dtype=bool)
        new: list[int] = []
        for offset, group in enumerate(batch):
            if known[offset] >= 0:
                leader_of[group] = leaders[known[offset]]
                continue
            first = -1
            if any_earlier[offset]:
                alike_earlier = np.flatnonzero(np.logical_and(earlier[offset], leading))
                first = int(alike_earlier[0]) if len(alike_earlier) else -1
            if first >= 0:
                leader_of[group] = batch[first]
            else:
                leading[offset] = True
                new.append(group)
                leader_of[group] = group
        leaders += new
        alike.lead(new)
    return leader_of


class _Vectors:
    """Cosines of the groups' sentence vectors at least `SEMANTIC_SIMILARITY`, bounded
    first on part of the dimensions (`HEAD`).

    For unit vectors a and b split in two, a·b = a1·b1 + a2·b2 ≤ a1·b1 + |a2| |b2|
    (Cauchy-Schwarz): with |a2| as one more column, one BLAS product of 5/8 the size
    bounds every cosine of a batch and its leaders. Only the pairs whose bound reaches the
    threshold are computed in full, unless they are more than `FULL_BELOW` of the batch's
    pairs: then the whole product is cheaper, for that batch and the next ones. On the
    bench's vectors, no two alike, almost no pair is left, and the products took 0.34 s
    where the whole ones took 0.46 s (of a clustering of about 0.55 s). Real sentence
    vectors share much of their direction: on 2,000 distinct support messages encoded
    by all-MiniLM-L6-v2 the bound left 20 % of the pairs (4 % alike), so after the
    first batches they cost what the whole product did.
    Leaders' rows are kept in arrays as they come (not gathered again for every batch)."""

    def __init__(self, groups: Sequence[_Group], with_vector: Sequence[int]) -> None:
        dimensions = len(groups[with_vector[0]].vector or ()) if with_vector else 0
        flat = chain.from_iterable(groups[i].vector or () for i in with_vector)
        units = np.fromiter(flat, np.float32, len(with_vector) * dimensions)
        units = units.reshape(len(with_vector), dimensions)
        units /= np.maximum(np.linalg.norm(units, axis=1, keepdims=True), 1e-12)
        head = round(dimensions * HEAD)
        rest = np.linalg.norm(units[:, head:], axis=1, keepdims=True)
        self.units = units
        self.bounds = np.hstack([units[:, :head], rest])
        self.row = {group: row for row, group in enumerate(with_vector)}
        self.leader_units = np.empty_like(self.units)
        self.leader_bounds = np.empty_like(self.bounds)
        self.count = 0
        self.bounding = True

    def lead(self, groups: Sequence[int]) -> None:
        rows = [self.row[g] for g in groups]
        self.leader_units[self.count : self.count + len(rows)] = self.units[rows]
        self.leader_bounds[self.count : self.count + len(rows)] = self.bounds[rows]
        self.count += len(rows)

    def __call__(self, batch: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        rows = [self.row[g] for g in batch]
        own = self.units[rows]
        within = own @ own.T >= SEMANTIC_SIMILARITY
        leaders = self.leader_units[: self.count]
        if not self.bounding:
            return own @ leaders.T >= SEMANTIC_SIMILARITY, within
        bounds = self.bounds[rows] @ self.leader_bounds[: self.count].T
        maybe = np.flatnonzero(bounds >= SEMANTIC_SIMILARITY - ROUNDING)
        if len(maybe) > FULL_BELOW * len(batch) * self.count:
            self.bounding = False  # these vectors are alike too often for the bound to pay
            return own @ leaders.T >= SEMANTIC_SIMILARITY, within
        row, column = np.divmod(maybe, self.count)
        alike = np.zeros((len(batch), self.count), dtype=bool)
        cosines = np.einsum("ij,ij->i", own[row], leaders[column])
        alike[row, column] = cosines >= SEMANTIC_SIMILARITY
        return alike, within


class _Words:
    """rapidfuzz's `ratio` of normalised texts at least `LEXICAL_SIMILARITY`, scored only
    for the pairs an exact bound lets through.

    `ratio` is 200 × LCS / (len a + len b), and the longest common subsequence of two
    texts has at most, of each character, the fewer of the two texts' counts. That sum of
    minimums is the product of two rows of 0/1 (a column per character class and count:
    "has at least 2 'e'"); with the lengths in two more columns, one BLAS product per
    batch gives 40 × bound - 17 × (len a + len b), whole numbers, so exact in float32, at
    least 0 where `ratio` can reach 85. On the bench's messages it lets 0.3 % of the pairs
    through, which rapidfuzz's `cpdist` then scores: when no two messages are alike the
    clustering took 0.5 s where scoring every pair took 1.1 s. Texts made of the same
    characters in other orders can leave more than `FULL_BELOW` of a batch's pairs: then
    that batch and the next ones score every pair, as `cdist` did before."""

    def __init__(self, groups: Sequence[_Group], compared: Sequence[int]) -> None:
        self.keys = [g.key for g in groups]
        self.row = {group: row for row, group in enumerate(compared)}
        counts = _character_counts([self.keys[i] for i in compared])
        lengths = np.array([len(self.keys[i]) for i in compared], dtype=np.float32)[:, None]
        ones = np.ones_like(lengths)
        self.own = np.hstack([40 * counts, -17 * lengths, ones])
        self.other = np.hstack([counts, ones, -17 * lengths])
        self.leaders: list[int] = []
        self.leader_rows = np.empty_like(self.other)
        self.bounding = True

    def lead(self, groups: Sequence[int]) -> None:
        count = len(self.leaders)
        rows = [self.row[g] for g in groups]
        self.leader_rows[count : count + len(rows)] = self.other[rows]
        self.leaders += groups

    def __call__(self, batch: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        rows = [self.row[g] for g in batch]
        own = self.own[rows]
        return (
            self._alike(batch, own, self.leaders, self.leader_rows[: len(self.leaders)]),
            self._alike(batch, own, batch, self.other[rows]),
        )

    def _alike(
        self, rows: Sequence[int], own: np.ndarray, columns: Sequence[int], other: np.ndarray
    ) -> np.ndarray:
        texts = [self.keys[r] for r in rows], [self.keys[c] for c in columns]
        if self.bounding:
            maybe = np.flatnonzero(own @ other.T >= 0)  # 10 x np.nonzero's speed
            self.bounding = len(maybe) <= FULL_BELOW * len(rows) * len(columns)
        if not self.bounding:  # these texts share their characters too often for the bound
            every = process.cdist(*texts, scorer=fuzz.ratio, score_cutoff=LEXICAL_SIMILARITY)
            alike: np.ndarray = every >= LEXICAL_SIMILARITY
            return alike
        row, column = np.divmod(maybe, len(columns))
        scores = process.cpdist(
            [self.keys[rows[r]] for r in row.tolist()],
            [self.keys[columns[c]] for c in column.tolist()],
            scorer=fuzz.ratio,
            score_cutoff=LEXICAL_SIMILARITY,
            workers=1,
        )
        alike = np.zeros((len(rows), len(columns)), dtype=bool)
        alike[row, column] = scores >= LEXICAL_SIMILARITY
        return alike


def _character_counts(keys: Sequence[str]) -> np.ndarray:
    """Each text's row of 0/1: a column per character class (`BUCKETS`) and count, 1
    where the text has at least that many characters of the class. The product of two
    rows is then the sum, over classes, of the fewer of the two texts' counts."""
    lengths = [len(k) for k in keys]
    codes = np.frombuffer("".join(keys).encode("utf-32-le"), dtype=np.uint32) % BUCKETS
    owners = np.repeat(np.arange(len(keys)), lengths)
    counts = np.bincount(owners * BUCKETS + codes, minlength=len(keys) * BUCKETS)
    counts = counts.reshape(len(keys), BUCKETS)
    most = counts.max(axis=0, initial=0)
    bucket = np.repeat(np.arange(BUCKETS), most)
    level = np.arange(len(bucket)) - np.repeat(np.cumsum(most) - most, most)
    rows: np.ndarray = (counts[:, bucket] > level).astype(np.float32)
    return rows


def _cluster(groups: Sequence[_Group]) -> Cluster:
    if len(groups) == 1:  # most clusters when no two messages are alike
        texts = [text for text, _ in groups[0].texts]
        misses = groups[0].misses
    else:
        counts: dict[str, int] = {}
        for group in groups:  # the leader first: its most frequent text represents the cluster
            for text, count in group.texts:
                counts[text] = counts.get(text, 0) + count
        leader_text = groups[0].texts[0][0]
        texts = sorted(counts, key=lambda text: (text != leader_text, -counts[text]))
        misses = [miss for group in groups for miss in group.misses]
    times = [miss.at for miss in misses]
    return Cluster(
        id=_key_id(groups[0].key),
        count=len(misses),
        first=min(times),
        last=max(times),
        texts=tuple(texts),
        members=tuple(misses),
        vector=groups[0].vector,
    )
