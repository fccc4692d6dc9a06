"""Parameter values read from a message: which mention fills which parameter, and the
message's words with each mention read as its entity's slot word."""

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from bot_api.domain.interactions import Interaction
from bot_api.engine.entities import Mention
from bot_api.engine.phrases import slot_word
from bot_api.engine.scoring import Scored

MAX_READINGS = 8


def with_slot_words(words: Sequence[str], mentions: Sequence[Mention]) -> list[list[str]]:
    """The words with each mention replaced by its entity's slot word; a span read as
    several entities gives one variant per reading (at most MAX_READINGS variants). Of
    overlapping spans (a built-in date may hold a number) the earliest, longest counts.
    No variant without mentions (nearly every message of a story without entities)."""
    if not mentions:
        return []
    spans: dict[tuple[int, int], list[str]] = {}
    for mention in sorted(mentions, key=lambda m: (m.start, -m.end)):
        overlapping = any(s < mention.end and mention.start < e for s, e in spans)
        if (mention.start, mention.end) in spans or not overlapping:
            spans.setdefault((mention.start, mention.end), []).append(slot_word(mention.entity))
    variants: list[list[str]] = []
    for choice in itertools.islice(itertools.product(*spans.values()), MAX_READINGS):
        variant: list[str] = []
        position = 0
        for (start, end), slot in zip(spans, choice, strict=True):
            variant.extend(words[position:start])
            variant.append(slot)
            position = end
        variant.extend(words[position:])
        variants.append(variant)
    return variants


def values_for(
    interaction: Interaction, mentions: Sequence[Mention], scored: Scored | None
) -> dict[str, Any]:
    """Parameter values said in the message: the matched phrase's slots in order, then
    any other parameter of the interaction whose entity was mentioned."""
    slots = [(alias, entity) for entity, alias in scored.phrase.slots] if scored else []
    return fill([*slots, *((p.alias, p.entity) for p in interaction.parameters)], mentions)


def values_for_pending(
    interaction: Interaction,
    asked: str,
    parameters: Mapping[str, Any],
    mentions: Sequence[Mention],
) -> dict[str, Any]:
    """Values the message gives the interaction asking for `asked`: that parameter's
    first, then those of its other parameters still empty (what it collected stays)."""
    empty = [
        (p.alias, p.entity) for p in interaction.parameters if parameters.get(p.alias) in (None, "")
    ]
    return fill([(asked, interaction.parameter(asked).entity), *empty], mentions)


def fill(wanted: Sequence[tuple[str, str]], mentions: Sequence[Mention]) -> dict[str, Any]:
    """alias -> value for each (alias, entity) wanted, in order, from the first mention
    of its entity not taken yet (a span read as several entities fills one alias)."""
    unused = list(mentions)
    values: dict[str, Any] = {}
    for alias, entity in wanted:
        mention = next((m for m in unused if m.entity == entity), None)
        if mention is not None and alias not in values:
            values[alias] = mention.value
            unused = [m for m in unused if (m.start, m.end) != (mention.start, mention.end)]
    return values
