"""Stories built in memory for engine tests: no database, no HTTP."""

from collections.abc import Mapping, Sequence
from typing import Any

from bot_api.domain.interactions import (
    EMPTY_INTERACTION,
    STANDARD,
    default_interactions,
    prepare,
)
from bot_api.domain.structure import ContextChange, Structure
from bot_api.engine.story import StoryModel

DEFAULT_SETTINGS = {"confidence": 0.5, "fallback": True, "lifespan": 2}


def interaction(id: str, *user_says: str, **fields: Any) -> dict[str, Any]:
    parent = fields.pop("parent", None)
    content = prepare(
        {**EMPTY_INTERACTION, "name": id.title(), **fields, "userSays": list(user_says)}
    )
    return {**content, "id": id, "type": STANDARD, "parent": parent}


def story(
    *interactions: Mapping[str, Any],
    entities: Mapping[str, Sequence[str | Sequence[str]]] | None = None,
    references: Mapping[str, Sequence[str]] | None = None,
    **settings: Any,
) -> StoryModel:
    """A story with welcome and fallback, then the given interactions (root unless they
    name a `parent`), `references` (id -> ids it refers to) and entities given as
    name -> values, each a string or [value, synonym, ...]."""
    defaults = [{**d, "id": d["type"]} for d in default_interactions()]
    structure = Structure.for_new_story(d["id"] for d in defaults)
    for item in interactions:
        if item["parent"] is None:
            structure = structure.add_root(item["id"])
        else:
            structure = structure.add_child(item["parent"], item["id"])
    for source, targets in (references or {}).items():
        context = structure.contexts[source]
        structure = structure.apply(
            [
                ContextChange(
                    source,
                    context.root,
                    (*context.context_out, *targets),
                    (*context.references, *targets),
                )
            ]
        )
    entries = {
        name: [
            {
                "value": value if isinstance(value, str) else value[0],
                "synonyms": [{"value": s} for s in ([value] if isinstance(value, str) else value)],
            }
            for value in values
        ]
        for name, values in (entities or {}).items()
    }
    return StoryModel.build(
        "story", {**DEFAULT_SETTINGS, **settings}, structure, [*defaults, *interactions], entries
    )
