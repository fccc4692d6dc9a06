"""The semantic stage: sentence vectors of a story's phrases, compared with the message's.

Each interaction keeps the vectors of its phrases (float16, one row each) and their
normalised mean, its centroid. A message's vector is compared with the centroids to
find the interactions closest in meaning, and with the phrases of the few interactions
worth scoring. A phrase's vector is computed once per text and model, outside the
engine (`vector_key` names it); a phrase whose vector has not landed yet is simply not
here, and the lexical stage still scores it.
"""

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from bot_api.domain.entities import BUILTIN_EXAMPLES, Entity
from bot_api.domain.interactions import ENTITY_SLOT, Interaction
from bot_api.domain.settings import Settings
from bot_api.engine.scoring import Calibration, Scoring
from bot_api.engine.text import tokens

Vectors = npt.NDArray[np.float32]
StoredVectors = npt.NDArray[np.float16]
PhraseRows = Vectors | StoredVectors
"""Phrase vectors as computed (float32) or as stored (float16): a story at the limits
holds 100,000 while its semantic index is built, 73 MiB fewer as stored."""


class Encoder(Protocol):
    """Turns texts into unit-length sentence vectors (one row each), and says how its
    cosines read as a confidence."""

    model_id: str
    languages: frozenset[str]
    calibration: Calibration
    cross_lingual: bool
    """A sentence and its translation get close vectors, whatever their languages."""
    any_language: bool
    """It reads the stories answering any language (a cross-lingual encoder of more
    languages, dearer than the one reading stories of several languages)."""

    def __call__(self, texts: Sequence[str]) -> Vectors: ...


@dataclass(frozen=True)
class Encoders:
    """The sentence encoders a process offers, the preferred first. A story is read by
    the first that covers its language and reads its kind of story: one answering any
    language by an `any_language` encoder, one of several languages by a cross-lingual
    one, any other by one that is not cross-lingual; by none (lexically only) when no
    encoder does. (On xSID, the multilingual model read a story's own language worse
    than the lexical stage alone: docs/matching.md.)"""

    choices: tuple[Encoder, ...]

    def for_story(self, settings: Settings) -> Encoder | None:
        for encoder in self.choices:
            if settings.language in encoder.languages and _reads(encoder, settings):
                return encoder
        return None


def _reads(encoder: Encoder, settings: Settings) -> bool:
    if settings.answer_any_language:
        return encoder.any_language
    return encoder.cross_lingual == settings.multilingual


class VectorUnknown(Exception):
    def __init__(self, texts: Sequence[str]) -> None:
        super().__init__(f"no vector known for {len(texts)} texts")
        self.texts = list(texts)


class KnownVectors:
    """An encoder that only answers texts whose vectors are known already (a turn's, as
    the history keeps it). Asked for others, it raises `VectorUnknown` naming them, so
    that the caller can encode all such texts in one batch and ask again."""

    def __init__(self, encoder: Encoder, known: Mapping[str, Sequence[float] | Vectors]) -> None:
        self.model_id = encoder.model_id
        self.languages = encoder.languages
        self.calibration = encoder.calibration
        self.cross_lingual = encoder.cross_lingual
        self.any_language = encoder.any_language
        self._known = known

    def __call__(self, texts: Sequence[str]) -> Vectors:
        unknown = [t for t in texts if t not in self._known]
        if unknown:
            raise VectorUnknown(unknown)
        return np.array([self._known[t] for t in texts], dtype=np.float32)


def phrase_text(source: str, representatives: Mapping[str, str]) -> str:
    """The phrase as the encoder reads it: normalised words, each `{{entity:alias}}` slot
    replaced by a value of its entity (its name when the account has no such entity)."""
    with_values = ENTITY_SLOT.sub(
        lambda m: representatives.get(m.group(1), m.group(1)).replace("_", " "), source
    )
    return " ".join(tokens(with_values))


def vector_key(model_id: str, text: str) -> str:
    """The name of a text's vector: the same text with the same model is encoded once."""
    return hashlib.sha256(f"{model_id}\n{text}".encode()).hexdigest()


@dataclass(frozen=True)
class _Block:
    phrases: PhraseRows
    centroid: Vectors

    def kept_as(self, wide: bool) -> "_Block":
        """The block with float32 (`wide`) or float16 phrase rows."""
        if (self.phrases.dtype == np.float32) == wide:
            return self
        if wide:
            return _Block(self.phrases.astype(np.float32), self.centroid)
        return _Block(self.phrases.astype(np.float16), self.centroid)


@dataclass(frozen=True)
class Similarity:
    centroid: float
    nearest: float
    """The mean cosine with the interaction's `Scoring.nearest_phrases` nearest phrases
    (all of them when it has fewer)."""

    def value(self, scoring: Scoring) -> float:
        share = scoring.semantic_centroid_share
        return share * self.centroid + (1 - share) * self.nearest


FLOAT32_PHRASES = 10_000
"""A story with at most this many phrase vectors keeps them as float32 (at most 7.7 MB
more than float16 for MiniLM), a larger one as stored, float16: a turn compares the
message with the phrases of about six interactions, and converting a block of 99
float16 rows costs 66 µs where the product itself takes 3 (0.4 ms of a 2.5 ms turn).
Larger stories keep the bytes instead (the 1,000 × 99 one of make bench: 94 MiB)."""


class SemanticIndex:
    """Phrase vectors by interaction. A value: `updated` makes a new one."""

    def __init__(self, model_id: str, blocks: Mapping[str, _Block]) -> None:
        self.model_id = model_id
        rows = sum(len(b.phrases) for b in blocks.values())
        self._blocks = {i: b.kept_as(rows <= FLOAT32_PHRASES) for i, b in blocks.items()}
        self._ids = list(self._blocks)
        dimensions = next(iter(self._blocks.values())).centroid.shape[0] if self._blocks else 0
        self._centroids: Vectors = (
            np.stack([b.centroid for b in self._blocks.values()])
            if self._blocks
            else np.zeros((0, dimensions), np.float32)
        )

    @classmethod
    def build(cls, model_id: str, vectors: Mapping[str, Sequence[PhraseRows]]) -> "SemanticIndex":
        """The index of each interaction's phrase vectors (interactions with none are left
        out: the lexical stage alone scores them)."""
        return cls(model_id, _blocks(vectors))

    def updated(
        self, put: Mapping[str, Sequence[PhraseRows]], removed: Iterable[str] = ()
    ) -> "SemanticIndex":
        blocks = {i: b for i, b in self._blocks.items() if i not in put}
        for interaction_id in removed:
            blocks.pop(interaction_id, None)
        blocks.update(_blocks(put))
        return SemanticIndex(self.model_id, blocks)

    def __contains__(self, interaction_id: str) -> bool:
        return interaction_id in self._blocks

    def __len__(self) -> int:
        """Interactions with phrase vectors."""
        return len(self._blocks)

    @property
    def nbytes(self) -> int:
        stored = sum(b.phrases.nbytes + b.centroid.nbytes for b in self._blocks.values())
        return stored + self._centroids.nbytes

    def nearest(self, query: Vectors, count: int, eligible: "Eligible") -> list[str]:
        """The eligible interactions whose centroids are closest to the query."""
        if not self._ids:
            return []
        order = np.argsort(-(self._centroids @ query))
        found: list[str] = []
        for position in order:
            interaction_id = self._ids[int(position)]
            if eligible(interaction_id):
                found.append(interaction_id)
                if len(found) == count:
                    break
        return found

    def similarity(
        self, query: Vectors, interaction_id: str, nearest_phrases: int
    ) -> Similarity | None:
        block = self._blocks.get(interaction_id)
        if block is None:
            return None
        cosines = block.phrases @ query
        if len(cosines) > nearest_phrases:
            cosines = np.partition(cosines, -nearest_phrases)[-nearest_phrases:]
        return Similarity(float(block.centroid @ query), float(cosines.mean()))


class Eligible(Protocol):
    def __call__(self, interaction_id: str, /) -> bool: ...


def _blocks(vectors: Mapping[str, Sequence[PhraseRows]]) -> dict[str, _Block]:
    blocks: dict[str, _Block] = {}
    for interaction_id, rows in vectors.items():
        if not len(rows):
            continue
        phrases = np.asarray(rows, dtype=np.float32)
        mean = phrases.mean(axis=0)
        centroid: Vectors = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
        blocks[interaction_id] = _Block(phrases.astype(np.float16), centroid)
    return blocks


@dataclass(frozen=True)
class PhraseVectors:
    """Vectors of phrase texts by `vector_key`, as far as they have been computed."""

    model_id: str
    by_key: Mapping[str, PhraseRows]

    def of(self, texts: Iterable[str]) -> list[PhraseRows]:
        keys = (vector_key(self.model_id, t) for t in texts)
        return [self.by_key[k] for k in keys if k in self.by_key]

    def missing(self, texts: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
        """Of these phrase texts by interaction, those without a vector here."""
        missing = {
            i: [t for t in phrases if vector_key(self.model_id, t) not in self.by_key]
            for i, phrases in texts.items()
        }
        return {i: phrases for i, phrases in missing.items() if phrases}


def representatives(entities: Iterable[Entity]) -> dict[str, str]:
    """Each entity's first value: what its slot reads as in a phrase's vector (a
    built-in entity's slot reads as an example of its values)."""
    return BUILTIN_EXAMPLES | {e.name: e.entries[0].value for e in entities if e.entries}


def interaction_texts(
    interactions: Iterable[Interaction], values: Mapping[str, str], translated: bool = False
) -> dict[str, list[str]]:
    """Each interaction's phrases as the encoder reads them; `translated`: with its
    phrases in every language it has them in (a story of several languages is read by
    a cross-lingual encoder, whose vectors of a German phrase and of its English one
    are close: each language's phrases are evidence for the others)."""
    return {
        i.id: [t for t in (phrase_text(p, values) for p in _phrases(i, translated)) if t]
        for i in interactions
    }


def _phrases(interaction: Interaction, translated: bool) -> list[str]:
    if not translated:
        return list(interaction.user_says)
    variants = interaction.translations.values()
    return [*interaction.user_says, *(p for t in variants for p in t.user_says)]


def uses_slots(interaction: Interaction) -> bool:
    return any(ENTITY_SLOT.search(p) for p in _phrases(interaction, translated=True))
