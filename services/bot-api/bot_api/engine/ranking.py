"""Ranking a message's candidates: the lexical stage, then the semantic stage when the
lexical one is not decisive (docs/matching.md).

An exact phrase or a clear lexical winner answers at once, without encoding the
message. Otherwise the lexical top few and the semantically nearest few are scored by
both stages and blended (0.3 lexical + 0.7 semantic). A candidate's score is its share
of the candidates' blends under a softmax (a message that belongs to no interaction
tends to be about as close to several, so no share stands out), calibrated so that a
share of 0.40 reads as the default confidence, 0.5; and never more than its blend alone
reads (0.20 at 0.5), so a story with one or two interactions still falls back on a
message close to none. An interaction whose phrase vectors have not landed yet keeps its
lexical score.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace

from bot_api.engine.matching import CANDIDATES, MatchIndex, Scored, calibrated
from bot_api.engine.semantic import Eligible, Encoder, SemanticIndex, Vectors

DECISIVE = 0.8
"""A lexical score at or above this answers without the semantic stage: on the data of
docs/benchmarks.md the lexical winner is then right every time (one message in nine on
HWU64)."""
SEMANTIC_CANDIDATES = 6
LEXICAL_SHARE = 0.3
TEMPERATURE = 0.05
"""Of the softmax over the candidates' blends: a lead of 0.05 weighs e (2.7) times more."""
SHARE_KNEE = 0.40
"""The winner's share of the softmax that reads as the default confidence 0.5."""
BLEND_KNEE = 0.20
"""The blend that reads as 0.5 on its own: the score never exceeds that reading."""


def rank(
    index: MatchIndex,
    semantic: SemanticIndex | None,
    encoder: Encoder | None,
    variants: Sequence[Sequence[str]],
    eligible: Eligible,
    every_candidate: bool = False,
) -> tuple[list[Scored], Vectors | None]:
    """Eligible interactions worth considering, best first, and the message's sentence
    vector when the semantic stage encoded it (the history keeps it for the inbox).
    `variants[-1]` is the message's words as said: the text the encoder reads."""
    lexical = index.search(variants, eligible, every_candidate)
    if (
        not semantic
        or encoder is None
        or encoder.model_id != semantic.model_id
        or (lexical and lexical[0].score >= DECISIVE)
    ):
        return lexical, None
    query = encoder([" ".join(variants[-1])])[0]
    candidates = dict.fromkeys(
        [s.interaction_id for s in lexical[:CANDIDATES]]
        + semantic.nearest(query, SEMANTIC_CANDIDATES, eligible)
    )
    lexical_scores = index.score_each(variants, candidates)
    similarities = {
        i: similarity
        for i in lexical_scores
        if (similarity := semantic.similarity(query, i)) is not None
    }
    blends = {
        i: LEXICAL_SHARE * lexical_scores[i].blend + (1 - LEXICAL_SHARE) * similarity.value
        for i, similarity in similarities.items()
    }
    ranked = []
    for interaction_id, scored in lexical_scores.items():
        blend = blends.get(interaction_id)
        if blend is None:
            ranked.append(replace(scored, lexical=scored.score))
            continue
        ranked.append(
            replace(
                scored,
                score=confidence(blend, blends.values()),
                lexical=scored.score,
                semantic=similarities[interaction_id].value,
            )
        )
    return sorted(ranked, key=lambda s: -s.score), query


def confidence(blend: float, blends: Iterable[float]) -> float:
    """A candidate's score: its softmax share among the candidates' `blends` (its own
    included), calibrated, capped by its blend's own reading. Both rise with the blend,
    so the order of the candidates is the order of their blends."""
    share = 1 / sum(math.exp((other - blend) / TEMPERATURE) for other in blends)
    return min(calibrated(share, SHARE_KNEE), calibrated(blend, BLEND_KNEE))
