"""Ranking a message's candidates: the lexical stage, then the semantic stage when the
lexical one is not decisive (docs/matching.md).

An exact phrase or a clear lexical winner answers at once, without encoding the
message. Otherwise the lexical top few and the semantically nearest few are scored by
both stages; the blend (0.3 lexical + 0.7 semantic) gains twice its lead over the best
other candidate (a message that belongs to no interaction tends to be about as close to
several), and is calibrated so that 0.40 reads as the default confidence, 0.5. An
interaction whose phrase vectors have not landed yet keeps its lexical score.
"""

from collections.abc import Sequence
from dataclasses import replace

from bot_api.engine.matching import CANDIDATES, MatchIndex, Scored, calibrated
from bot_api.engine.semantic import Eligible, Encoder, SemanticIndex

DECISIVE = 0.8
"""A lexical score at or above this answers without the semantic stage: on the data of
docs/benchmarks.md the lexical winner is then right every time (one message in nine on
HWU64)."""
SEMANTIC_CANDIDATES = 6
LEXICAL_SHARE = 0.3
LEAD_WEIGHT = 2.0
CALIBRATION_KNEE = 0.40


def rank(
    index: MatchIndex,
    semantic: SemanticIndex | None,
    encoder: Encoder | None,
    variants: Sequence[Sequence[str]],
    eligible: Eligible,
    every_candidate: bool = False,
) -> list[Scored]:
    """Eligible interactions worth considering, best first. `variants[-1]` is the
    message's words as said: the text the encoder reads."""
    lexical = index.search(variants, eligible, every_candidate)
    if (
        not semantic
        or encoder is None
        or encoder.model_id != semantic.model_id
        or (lexical and lexical[0].score >= DECISIVE)
    ):
        return lexical
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
        lead = blend - max((b for i, b in blends.items() if i != interaction_id), default=0.0)
        ranked.append(
            replace(
                scored,
                score=calibrated(blend + LEAD_WEIGHT * lead, CALIBRATION_KNEE),
                lexical=scored.score,
                semantic=similarities[interaction_id].value,
            )
        )
    return sorted(ranked, key=lambda s: -s.score)
