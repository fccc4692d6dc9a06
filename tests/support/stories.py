"""Stories built in memory for engine tests: no database, no HTTP."""

from collections.abc import Mapping, Sequence
from typing import Any

from bot_api.domain.entities import Entity, Entry
from bot_api.domain.interactions import (
    EMPTY_INTERACTION,
    STANDARD,
    default_interactions,
    interaction_from_content,
    prepare,
)
from bot_api.domain.settings import Settings
from bot_api.domain.structure import ContextChange, Structure
from bot_api.engine.story import CompiledStory


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
) -> CompiledStory:
    """A story with welcome and fallback, then the given interactions (root unless they
    name a `parent`), `references` (id -> ids it refers to) and entities given as
    name -> values, each a string or [value, synonym, ...]."""
    language = settings.get("language", "english")
    defaults = [{**d, "id": d["type"]} for d in default_interactions(language)]
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
    recognised = [
        Entity(
            name,
            tuple(
                Entry(value, (value,)) if isinstance(value, str) else Entry(value[0], tuple(value))
                for value in values
            ),
        )
        for name, values in (entities or {}).items()
    ]
    typed = [interaction_from_content(i["id"], i["type"], i) for i in [*defaults, *interactions]]
    return CompiledStory.compile("story", Settings(**settings), structure, typed, recognised)
