"""Every tunable number of the blend that decides a match, in one value (docs/matching.md).

`Scoring` holds the numbers of the lexical stage and of the blend with the semantic
stage; `SCORING` is what every story uses, and `bench/tuning.py` varies it. The numbers
that depend on the sentence-encoding model (how its cosines read as a confidence) are
the model's own `Calibration`, declared with the encoder (`encoding/minilm.py`), so a
second model brings its own. Limits on the work of a turn (`MAX_*`) are not tunables:
they stay with the code they bound.

The reasons below were measured on the public intent data of docs/benchmarks.md with
`bench/tuning.py` (Braun overall, HWU64 fold 1, HWU64 with ten intents left out).

A lexical match is `Scored`: its centroid and closest-phrase cosines `blend`ed by these
numbers, and `calibrated` to the scale the confidence threshold reads.
"""

from dataclasses import dataclass

from bot_api.engine.phrases import Phrase


@dataclass(frozen=True)
class Scoring:
    """The numbers of the lexical stage and of its blend with the semantic stage."""

    lexical_centroid_share: float = 0.8
    """Lexical similarity = this × cosine with the interaction's centroid + the rest ×
    cosine with its closest phrase (a Rocchio classifier, steadied by its best phrase)."""
    calibration_knee: float = 0.10
    """The lexical blend that reads as the default confidence 0.5, linear below and
    above: nearly every right best match blends above 0.1, nine in ten above 0.2."""
    lexical_candidates: int = 4
    """Interactions the lexical stage scores in full (and hands to the blend): scoring
    every interaction instead changed HWU64 by at most 0.2 points."""
    selective_postings: int = 16
    """A term in the centroids of more interactions than this (or a tenth of them, when
    more) is left out of the candidates' search, never out of the score: it adds about
    the same to each."""
    common_phrase_share: float = 0.3
    """A term in more than this share of the phrases is left out of the closest-phrase
    cosine, which then turns on the words that tell phrases apart."""
    decisive: float = 0.8
    """A lexical score at or above this answers without the semantic stage: the lexical
    winner was then right every time (one HWU64 message in nine)."""
    sure_in_language: float = 0.5
    """For a story read by a cross-lingual encoder, and a message surely written in the
    language it is read in: a lexical winner at or above this (the default confidence)
    stays the winner; its meaning may only lower its score (`sure_margin`). Letting
    meaning overrule it scored xSID's German story 0.854 against 0.900 lexically;
    answering it without the semantic stage let 54 % of the off-topic messages fall
    back against 85 % (docs/languages.md)."""
    sure_margin: float = 0.1
    """A sure lexical winner's score is at most what its blend reads on its own: against
    the encoder's blend knee when meaning ranks another first, against the knee less
    this when meaning agrees. So meaning vetoes a message close to none and never
    chooses another answer. Measured on xSID's own stories (German, Dutch, Chinese)
    and the off-topic set asked of its English one: a single knee less 0.05 scored
    0.902, 0.886, 0.908 with 81 % falling back; these two 0.900, 0.888, 0.910 with 80 %
    (lexically 0.900, 0.890, 0.912) (docs/languages.md)."""
    semantic_candidates: int = 6
    """Interactions whose phrase-vector centroids are nearest the message, scored beside
    the lexical candidates."""
    semantic_centroid_share: float = 0.3
    """Semantic similarity = this × cosine with the centroid + the rest × the mean cosine
    with the `nearest_phrases` nearest phrases: Braun 0.942, HWU64 0.889 top-1, against
    0.931 / 0.880 for 0.7 × centroid + 0.3 × closest phrase."""
    nearest_phrases: int = 3
    """Phrases whose mean cosine is taken (all of them when fewer): 5 scored 0.938 /
    0.884."""
    lexical_share: float = 0.3
    """Blend = this × the lexical blend (before calibration) + the rest × the semantic
    similarity: 0.2 and 0.3 scored within half a point."""


SCORING = Scoring()
"""The scoring every story uses."""


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

    def blend(self, scoring: Scoring) -> float:
        """The lexical similarity before calibration."""
        return blend(self.centroid, self.closest, scoring)


def blend(centroid: float, closest: float, scoring: Scoring) -> float:
    """The lexical similarity: the centroid's cosine and the closest phrase's, weighed."""
    share = scoring.lexical_centroid_share
    return share * centroid + (1 - share) * closest


def calibrated(similarity: float, knee: float) -> float:
    """The blended similarity on the 0..1 scale the confidence threshold reads: `knee`
    reads as 0.5, linear below and above."""
    similarity = min(max(similarity, 0.0), 1.0)
    if similarity <= knee:
        return 0.5 * similarity / knee
    return 0.5 + 0.5 * (similarity - knee) / (1 - knee)


@dataclass(frozen=True)
class Calibration:
    """How a sentence-encoding model's blended cosines read as a confidence: a model's
    cosines sit in a range of their own, so each model declares its calibration."""

    temperature: float
    """Of the softmax over the candidates' blends, whose share is the score: a message
    that belongs to no interaction tends to be about as close to several, so no share
    stands out."""
    share_knee: float
    """The winner's share of the softmax that reads as the default confidence 0.5."""
    blend_knee: float
    """The blend that reads as 0.5 on its own: the score never exceeds that reading, so
    a story of one or two interactions (where shares are large whatever is said) still
    falls back on a message close to none."""
