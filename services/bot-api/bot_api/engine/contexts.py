"""Active contexts (docs/query.md): after an interaction X matches, what may follow X
(its contextOut) becomes an active context with the story's lifespan. Eligible are the
root interactions and what follows any active context. A turn that matches nothing
following an active context spends one unit of that context's lifespan; at zero it is
gone, and with none left the conversation is back at the root level.
"""

from collections.abc import Sequence
from dataclasses import replace

from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import ActiveContext

MAX_ACTIVE_CONTEXTS = 5
ROOT_TIER = 2
"""The tier of an interaction no active context makes eligible (engine/explanations.py
names the tiers)."""


def following_contexts(story: CompiledStory, contexts: Sequence[ActiveContext]) -> dict[str, int]:
    """What may follow an active context, with its tier: 0 after the newest context,
    1 after an older one."""
    tiers: dict[str, int] = {}
    for position, active in enumerate(contexts):
        context = story.structure.contexts.get(active.id)
        for child in context.context_out if context else ():
            if child in story.interactions:
                tiers[child] = min(tiers.get(child, ROOT_TIER), 0 if position == 0 else 1)
    return tiers


def follow_up(story: CompiledStory, contexts: Sequence[ActiveContext], matched_id: str) -> str:
    """The interaction answering what `matched_id`'s phrases matched: that one, or its
    follow-up when it is a root: a non-root interaction without phrases of its own
    and with the same action that may follow an active context (the newest first).
    So a "yes" is one set of phrases, answered after each question as that
    question's follow-up says (docs/query.md "Conversation rules")."""
    action = story.interactions[matched_id].action
    matched = story.structure.contexts.get(matched_id)
    if not action or matched is None or not matched.root:
        return matched_id
    for active in contexts:
        context = story.structure.contexts.get(active.id)
        for child in context.context_out if context else ():
            answering = story.interactions.get(child)
            structure = story.structure.contexts.get(child)
            if (
                answering is not None
                and structure is not None
                and not structure.root
                and not answering.user_says
                and answering.action == action
            ):
                return child
    return matched_id


def spent(
    story: CompiledStory, contexts: Sequence[ActiveContext], hit: str | None, lifespan: int
) -> list[ActiveContext]:
    """The active contexts after a turn that entered `hit` (None: it matched nothing): a
    matched interaction becomes the newest context, with `lifespan`; contexts it did not
    follow from spend one unit of theirs."""
    kept: list[ActiveContext] = []
    for active in contexts:
        context = story.structure.contexts.get(active.id)
        followed = hit is not None and context is not None and hit in context.context_out
        remaining = active.lifespan if followed else active.lifespan - 1
        if remaining > 0 and active.id != hit:
            kept.append(replace(active, lifespan=remaining))
    context = story.structure.contexts.get(hit) if hit else None
    if hit is not None and context is not None and context.context_out:
        kept.insert(0, ActiveContext(hit, lifespan))
    return kept[:MAX_ACTIVE_CONTEXTS]
