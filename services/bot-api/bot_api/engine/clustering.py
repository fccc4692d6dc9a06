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
"""

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from rapidfuzz import fuzz, process

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
"""Groups compared with the leaders at once (one matrix per batch: numpy's product of
vectors, rapidfuzz's `cdist` of texts)."""


@dataclass(frozen=True)
class Miss:
    """An unresolved turn of the inbox: what the visitor said, when, and its vector."""

    turn_id: str
    text: str
    at: datetime
    vector: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Cluster:
    id: str
    count: int
    first: datetime
    last: datetime
    texts: tuple[str, ...]
    """Every distinct text of the cluster, most frequent first (the leader's first)."""
    members: tuple[Miss, ...]

    @property
    def representative(self) -> str:
        return self.texts[0]

    @property
    def examples(self) -> tuple[str, ...]:
        return self.texts[:EXAMPLES]


def normalised(text: str) -> str:
    return " ".join(tokens(text))


def cluster_id(text: str) -> str:
    """A stable id from a leader's text (16 hex digits, as safe in a URL as an ObjectId)."""
    return hashlib.sha256(normalised(text).encode()).hexdigest()[:16]


@dataclass
class _Group:
    """The misses of one normalised text."""

    key: str
    misses: list[Miss]
    vector: tuple[float, ...] | None

    def texts(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for miss in self.misses:
            counts[miss.text] = counts.get(miss.text, 0) + 1
        return sorted(counts.items(), key=lambda item: -item[1])


def clusters(misses: Iterable[Miss]) -> list[Cluster]:
    """The misses grouped by meaning, the biggest cluster first (then the most recent)."""
    groups = _groups(misses)
    keys = [g.key for g in groups]
    with_vector = [i for i, g in enumerate(groups) if g.vector is not None]
    row_of = {group: row for row, group in enumerate(with_vector)}
    vectors = np.array([groups[i].vector for i in with_vector], dtype=np.float32)
    if with_vector:
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def by_vector(rows: Sequence[int], columns: Sequence[int]) -> np.ndarray:
        own = vectors[[row_of[i] for i in rows]]
        return own @ vectors[[row_of[i] for i in columns]].T >= SEMANTIC_SIMILARITY

    def by_words(rows: Sequence[int], columns: Sequence[int]) -> np.ndarray:
        scores = process.cdist(
            [keys[i] for i in rows],
            [keys[i] for i in columns],
            scorer=fuzz.ratio,
            score_cutoff=LEXICAL_SIMILARITY,
            workers=1,
        )
        return scores >= LEXICAL_SIMILARITY

    leaders: list[int] = []
    leader_of = _assign(with_vector, leaders, by_vector)
    leader_of |= _assign([i for i in range(len(groups)) if i not in row_of], leaders, by_words)
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


def _assign(
    groups: Sequence[int],
    leaders: list[int],
    alike: Callable[[Sequence[int], Sequence[int]], np.ndarray],
) -> dict[int, int]:
    """Each of `groups`' leader, taken in order, `BATCH` at a time (one matrix of
    `alike` per batch and the leaders): a group joins the first leader it is alike,
    or leads and is appended to `leaders`."""
    leader_of: dict[int, int] = {}
    for start in range(0, len(groups), BATCH):
        batch = groups[start : start + BATCH]
        known = [-1] * len(batch)
        if leaders:
            matrix = alike(batch, leaders)
            known = np.where(matrix.any(axis=1), matrix.argmax(axis=1), -1).tolist()
        within = alike(batch, batch).tolist()
        new: list[int] = []
        for offset, group in enumerate(batch):
            if known[offset] >= 0:
                leader_of[group] = leaders[known[offset]]
                continue
            earlier = next((n for n in new if within[offset][n]), None)
            if earlier is None:
                new.append(offset)
            leader_of[group] = batch[offset if earlier is None else earlier]
        leaders += [batch[n] for n in new]
    return leader_of


def _cluster(groups: Sequence[_Group]) -> Cluster:
    counts: dict[str, int] = {}
    for group in groups:  # the leader first: its most frequent text represents the cluster
        for text, count in group.texts():
            counts[text] = counts.get(text, 0) + count
    leader_text = groups[0].texts()[0][0]
    ordered = sorted(counts, key=lambda text: (text != leader_text, -counts[text]))
    misses = [miss for group in groups for miss in group.misses]
    return Cluster(
        id=cluster_id(leader_text),
        count=len(misses),
        first=min(m.at for m in misses),
        last=max(m.at for m in misses),
        texts=tuple(ordered),
        members=tuple(misses),
    )
