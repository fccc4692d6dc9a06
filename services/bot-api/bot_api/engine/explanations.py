"""Why a turn answered as it did: the candidates `debug` shows with their tiers, the
runners-up every outcome carries for the history, and the decision in words."""

from collections.abc import Callable, Sequence

from bot_api.domain.history import ScoredCandidate
from bot_api.engine.scoring import Scored
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import Candidate

DEBUG_CANDIDATES = 5
TOP_CANDIDATES = 3
"""Candidates every outcome carries, debug or not, for the history: the runners-up
are what a reviewer needs to see why a message matched."""
TIERS = ("current context", "earlier context", "root")
"""What an interaction's tier says (engine/contexts.py): it follows the newest active
context, an older one, or none (a root)."""


def top_candidates(story: CompiledStory, ranked: Sequence[Scored]) -> tuple[ScoredCandidate, ...]:
    return tuple(
        ScoredCandidate(
            s.interaction_id, story.interactions[s.interaction_id].name, round(s.score, 4)
        )
        for s in ranked[:TOP_CANDIDATES]
    )


def debug_candidates(
    story: CompiledStory, ranked: Sequence[Scored], tier: Callable[[str], int]
) -> tuple[Candidate, ...]:
    return tuple(
        Candidate(
            id=s.interaction_id,
            name=story.interactions[s.interaction_id].name,
            score=round(s.score, 4),
            centroid=round(s.centroid, 4),
            closest_phrase=round(s.closest, 4),
            lexical=None if s.lexical is None else round(s.lexical, 4),
            semantic=None if s.semantic is None else round(s.semantic, 4),
            phrase=s.phrase.source,
            tier=TIERS[tier(s.interaction_id)],
        )
        for s in ranked[:DEBUG_CANDIDATES]
    )


def decision_reason(winner: Scored, candidates: Sequence[Candidate]) -> str:
    reason = f"best score {winner.score:.3f} (closest phrase {winner.phrase.source!r})"
    if len(candidates) > 1 and candidates[1].score == round(winner.score, 4):
        reason += f"; tied with {candidates[1].name!r}, preferred as {candidates[0].tier}"
    return reason
