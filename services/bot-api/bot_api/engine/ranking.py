"""Ranking a message's candidates: the lexical stage, then the semantic stage when the
lexical one is not decisive (docs/matching.md).

An exact phrase or a clear lexical winner answers at once, without encoding the
message. Otherwise the lexical top few and the semantically nearest few are scored by
both stages and blended (0.3 lexical + 0.7 semantic). A candidate's score is its share
of the candidates' blends under a softmax (a message that belongs to no interaction
tends to be about as close to several, so no share stands out), calibrated by the
encoder's `Calibration`; and never more than its blend alone reads, so a story with one
or two interactions still falls back on a message close to none. An interaction whose
phrase vectors have not landed yet keeps its lexical score. The numbers are the
`Scoring` value's and the encoder's (engine/scoring.py).
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace

from bot_api.engine.matching import MatchIndex
from bot_api.engine.scoring import SCORING, Calibration, Scored, Scoring, calibrated
from bot_api.engine.semantic import Eligible, Encoder, SemanticIndex, Vectors


def rank(
    index: MatchIndex,
    semantic: SemanticIndex | None,
    encoder: Encoder | None,
    variants: Sequence[Sequence[str]],
    eligible: Eligible,
    every_candidate: bool = False,
    scoring: Scoring = SCORING,
    query: Vectors | None = None,
    in_language: bool = False,
) -> tuple[list[Scored], Vectors | None]:
    """Eligible interactions worth considering, best first, and the message's sentence
    vector when the semantic stage encoded it (the history keeps it for the inbox).
    `variants[-1]` is the message's words as said: the text the encoder reads. `query`:
    its vector when the turn encoded it already (a second ranking of the same message).
    `in_language`: the message is surely written in the language the index reads, and
    the encoder is cross-lingual: a sure lexical winner stays first (`_kept_first`)."""
    lexical = index.search(variants, eligible, every_candidate, scoring)
    if (
        not semantic
        or encoder is None
        or encoder.model_id != semantic.model_id
        or (lexical and lexical[0].score >= scoring.decisive)
    ):
        return lexical, query
    if query is None:
        query = encoder([" ".join(variants[-1])])[0]
    candidates = dict.fromkeys(
        [s.interaction_id for s in lexical[: scoring.lexical_candidates]]
        + semantic.nearest(query, scoring.semantic_candidates, eligible)
    )
    lexical_scores = index.score_each(variants, candidates, scoring)
    similarities = {
        i: similarity.value(scoring)
        for i in lexical_scores
        if (similarity := semantic.similarity(query, i, scoring.nearest_phrases)) is not None
    }
    share = scoring.lexical_share
    blends = {
        i: share * lexical_scores[i].blend(scoring) + (1 - share) * similarity
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
                score=confidence(blend, blends.values(), encoder.calibration),
                lexical=scored.score,
                semantic=similarities[interaction_id],
            )
        )
    ranked.sort(key=lambda s: -s.score)
    if in_language and lexical and lexical[0].score >= scoring.sure_in_language:
        return _kept_first(lexical[0], ranked, blends, encoder.calibration, scoring), query
    return ranked, query


def _kept_first(
    sure: Scored,
    ranked: list[Scored],
    blends: dict[str, float],
    calibration: Calibration,
    scoring: Scoring,
) -> list[Scored]:
    """`ranked` with the sure lexical winner first: its score is its lexical one, or
    less when its blend reads less on its own (against the encoder's blend knee, less
    `sure_margin` when meaning ranks it first too), and every other candidate scores just
    under it (a thousandth less: the conversation orders the candidates by their
    scores to six places)."""
    score = sure.score
    blend = blends.get(sure.interaction_id)
    if blend is not None:
        agreed = ranked[0].interaction_id == sure.interaction_id
        knee = calibration.blend_knee - (scoring.sure_margin if agreed else 0.0)
        score = min(score, calibrated(blend, knee))
    winner = next(s for s in ranked if s.interaction_id == sure.interaction_id)
    below = score * 0.999
    return [
        replace(winner, score=score),
        *(replace(s, score=min(s.score, below)) for s in ranked if s is not winner),
    ]


def confidence(blend: float, blends: Iterable[float], calibration: Calibration) -> float:
    """A candidate's score: its softmax share among the candidates' `blends` (its own
    included), calibrated, capped by its blend's own reading. Both rise with the blend,
    so the order of the candidates is the order of their blends."""
    share = 1 / sum(math.exp((other - blend) / calibration.temperature) for other in blends)
    return min(calibrated(share, calibration.share_knee), calibrated(blend, calibration.blend_knee))
