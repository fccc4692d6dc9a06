"""Stories built in memory for engine tests: no database, no HTTP."""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot_api.domain.entities import Entity, Entry
from bot_api.domain.interactions import STANDARD, Interaction, default_interactions, prepare
from bot_api.domain.settings import Settings
from bot_api.domain.structure import ContextChange, Structure
from bot_api.engine.story import CompiledStory
from bot_api.interactions.schemas import InteractionUpdateSchema


def interaction(id: str, *user_says: str, **fields: Any) -> Interaction:
    """A standard interaction with these phrases and other fields as the API's body
    gives them (`responses=[{"type": "text", ...}]`), loaded by its schema."""
    given = InteractionUpdateSchema().load(fields)
    written = Interaction(id=id, kind=STANDARD, name=id.title(), user_says=user_says)
    return prepare(replace(written, **given))


def story(
    *interactions: Interaction,
    parents: Mapping[str, str] | None = None,
    entities: Mapping[str, Sequence[str | Sequence[str]]] | None = None,
    references: Mapping[str, Sequence[str]] | None = None,
    **settings: Any,
) -> CompiledStory:
    """A story with welcome and fallback, then the given interactions (root unless
    `parents` names theirs: child id -> parent id), `references` (id -> ids it refers
    to) and entities given as name -> values, each a string or [value, synonym, ...]."""
    language = settings.get("language", "english")
    defaults = [replace(d, id=d.kind) for d in default_interactions(language)]
    structure = Structure.for_new_story(d.id for d in defaults)
    for item in interactions:
        parent = (parents or {}).get(item.id)
        if parent is None:
            structure = structure.add_root(item.id)
        else:
            structure = structure.add_child(parent, item.id)
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
    typed = [*defaults, *interactions]
    return CompiledStory.compile("story", Settings(**settings), structure, typed, recognised)
