"""What becomes of the entities an import brings (docs/entities.md "Entities and imports").

Entities are the account's, shared by its stories, as SPEC has them. An import never
makes a story use an entity other than the one it brings: an entity the account has
with the same entries is reused; one the account has under that name with other entries
stays as it is, and the import's own is created under the first free name
(`account_type_2`, `account_type_3`…), every reference of the imported story renamed
with it. A copy an earlier import made, equal to the one brought, is reused.
"""

import contextlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from bot_api.domain.entities import Entity
from bot_api.domain.interactions import ENTITY_SLOT, Interaction, referenced_entities
from bot_api.entities.repository import EntityStore
from shared.errors import Conflict

MAX_ENTITY_NAME = 128
"""As `POST /entities` takes it (entities/schemas.py)."""
CANDIDATES = 20
"""Names looked up at once: an import brings an entity back a few times at most, so the
first batch nearly always holds the free name."""


@dataclass(frozen=True)
class ImportedEntity:
    name: str
    """As the document names it."""
    status: str
    """created or reused."""
    detail: str = ""
    stored_as: str = ""
    """The account's entity the story uses: `name`, or the free name it was created
    under (or an earlier import's copy) when the account's `name` differs."""


@dataclass(frozen=True)
class EntityPlan:
    """The report of each entity brought, those to create (under their stored names), and
    the new name of each renamed one."""

    report: list[ImportedEntity]
    new: list[Entity]
    renamed: dict[str, str]

    def stored(self, brought: Sequence[Entity]) -> list[Entity]:
        """The entities brought, each under the name the story uses it by."""
        return [replace(e, name=self.renamed.get(e.name, e.name)) for e in brought]


async def plan_entities(
    store: EntityStore, account_id: str, brought: Sequence[Entity]
) -> EntityPlan:
    by_name = {e.name: e for e in brought}
    held = {}
    if by_name:
        held = {e.entity.name: e.entity for e in await store.with_names(account_id, by_name)}
    taken = set(held) | set(by_name)
    report, new, renamed = [], [], {}
    for name, entity in by_name.items():
        existing = held.get(name)
        if existing is None:
            report.append(ImportedEntity(name, "created", stored_as=name))
            new.append(entity)
            continue
        if _entries(existing) == _entries(entity):
            report.append(ImportedEntity(name, "reused", stored_as=name))
            continue
        why = f"the account's {name} differs ({_difference(existing, entity)})"
        copy, equal = await _free_name(store, account_id, entity, taken)
        taken.add(copy)
        renamed[name] = copy
        if equal:
            report.append(ImportedEntity(name, "reused", f"reused {copy}: {why}", copy))
        else:
            report.append(ImportedEntity(name, "created", f"created as {copy}: {why}", copy))
            new.append(replace(entity, name=copy))
    return EntityPlan(report, new, renamed)


async def _free_name(
    store: EntityStore, account_id: str, entity: Entity, taken: set[str]
) -> tuple[str, bool]:
    """The first `name_N` (N from 2) the account lacks, or holds with the entity's very
    entries (True): neither brought by the document nor chosen for another entity."""
    number = 2
    while True:
        candidates = [_numbered(entity.name, n) for n in range(number, number + CANDIDATES)]
        found = {e.entity.name: e.entity for e in await store.with_names(account_id, candidates)}
        for candidate in candidates:
            if candidate in found:
                if _entries(found[candidate]) == _entries(entity) and candidate not in taken:
                    return candidate, True
            elif candidate not in taken:
                return candidate, False
        number += CANDIDATES


def _numbered(name: str, number: int) -> str:
    suffix = f"_{number}"
    return name[: MAX_ENTITY_NAME - len(suffix)] + suffix


def used_entities(
    interactions: Iterable[Interaction], definitions: Iterable[Entity]
) -> dict[str, Entity]:
    """By name, the entities of `definitions` the interactions use."""
    names: set[str] = set()
    for interaction in interactions:
        names |= referenced_entities(interaction)
    return {e.name: e for e in definitions if e.name in names}


async def restore_missing(store: EntityStore, account_id: str, used: Mapping[str, Entity]) -> bool:
    """Create again each entity of `used` the account no longer has: an import checks
    after writing its story, as an entity's delete does after deleting (issue 29: an import
    racing a delete left a story naming a deleted entity in 12 of 20 rounds). Whether one
    was."""
    present = await store.existing_names(account_id, used) if used else set()
    restored = False
    for name in sorted(set(used) - present):
        with contextlib.suppress(Conflict):  # the delete restored it meanwhile
            await store.insert(account_id, used[name])
            restored = True
    return restored


def renamed_entities(interaction: Interaction, renamed: Mapping[str, str]) -> Interaction:
    """The interaction naming each renamed entity by its new name: its parameters and
    its phrases' `{{entity:alias}}` slots (nothing else names an entity)."""
    if not renamed or not any(p.entity in renamed for p in interaction.parameters):
        return interaction

    def slot(found: re.Match[str]) -> str:
        entity = found[1]
        return found[0] if entity not in renamed else f"{{{{{renamed[entity]}:{found[2]}}}}}"

    return replace(
        interaction,
        parameters=tuple(
            replace(p, entity=renamed.get(p.entity, p.entity)) for p in interaction.parameters
        ),
        user_says=tuple(ENTITY_SLOT.sub(slot, phrase) for phrase in interaction.user_says),
    )


def _entries(entity: Entity) -> dict[str, list[str]]:
    return {entry.value: sorted(entry.synonyms) for entry in entity.entries}


def _difference(held: Entity, brought: Entity) -> str:
    mine, theirs = _entries(held), _entries(brought)
    missing = sorted(set(theirs) - set(mine))
    changed = sorted(v for v in set(theirs) & set(mine) if theirs[v] != mine[v])
    parts = []
    if missing:
        parts.append(f"it lacks {', '.join(map(repr, missing[:5]))}")
    if changed:
        parts.append(f"synonyms differ for {', '.join(map(repr, changed[:5]))}")
    extra = sorted(set(mine) - set(theirs))
    if extra:
        parts.append(f"it also has {', '.join(map(repr, extra[:5]))}")
    return "; ".join(parts)
