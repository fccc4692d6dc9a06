"""What changed from one story document to another (docs/versions.md): interactions by key
(added, removed, changed: which fields, each one's value before and after, which phrases),
settings, entities by name.

Both sides are documents as export writes them, so a version and the draft compare field
by field, whatever ids the draft has now. An interaction renamed gets another key: it
shows as one removed and one added.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PHRASES = "userSays"


@dataclass(frozen=True)
class Named:
    key: str
    name: str


@dataclass(frozen=True)
class FieldChange:
    """A field (or setting) with its value before and after: None where it is absent."""

    name: str
    before: Any
    after: Any


SettingChange = FieldChange


@dataclass(frozen=True)
class InteractionChange:
    key: str
    name: str
    fields: tuple[str, ...]
    """The document fields that differ, in the document's order (`userSays` included)."""
    phrases_added: tuple[str, ...]
    phrases_removed: tuple[str, ...]
    changes: tuple[FieldChange, ...] = ()
    """Each field of `fields` but `userSays` (the phrases added and removed say what
    changed there) with its value before and after."""


@dataclass(frozen=True)
class EntityChange:
    name: str
    entries_added: tuple[str, ...]
    entries_removed: tuple[str, ...]
    entries_changed: tuple[str, ...]
    """Entries whose synonyms differ."""


@dataclass(frozen=True)
class StoryDiff:
    added: tuple[Named, ...]
    removed: tuple[Named, ...]
    changed: tuple[InteractionChange, ...]
    settings: tuple[SettingChange, ...]
    entities_added: tuple[str, ...]
    entities_removed: tuple[str, ...]
    entities_changed: tuple[EntityChange, ...]

    def __bool__(self) -> bool:
        return any(
            (
                self.added,
                self.removed,
                self.changed,
                self.settings,
                self.entities_added,
                self.entities_removed,
                self.entities_changed,
            )
        )


def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> StoryDiff:
    """From `before` to `after`: what is added is in `after` only."""
    old = {i["key"]: i for i in before["interactions"]}
    new = {i["key"]: i for i in after["interactions"]}
    old_entities = {e["name"]: e for e in before["entities"]}
    new_entities = {e["name"]: e for e in after["entities"]}
    return StoryDiff(
        added=tuple(Named(k, i["name"]) for k, i in new.items() if k not in old),
        removed=tuple(Named(k, i["name"]) for k, i in old.items() if k not in new),
        changed=tuple(
            change
            for key, interaction in new.items()
            if key in old
            for change in [_interaction_change(old[key], interaction)]
            if change.fields
        ),
        settings=tuple(
            SettingChange(name, before["settings"].get(name), value)
            for name, value in after["settings"].items()
            if before["settings"].get(name) != value
        ),
        entities_added=tuple(sorted(new_entities.keys() - old_entities.keys())),
        entities_removed=tuple(sorted(old_entities.keys() - new_entities.keys())),
        entities_changed=tuple(
            change
            for name in sorted(old_entities.keys() & new_entities.keys())
            for change in [_entity_change(old_entities[name], new_entities[name])]
            if change.entries_added or change.entries_removed or change.entries_changed
        ),
    )


def _interaction_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> InteractionChange:
    names = [*new, *(name for name in old if name not in new)]
    old_phrases, new_phrases = old.get(PHRASES, []), new.get(PHRASES, [])
    changed = tuple(name for name in names if old.get(name) != new.get(name))
    return InteractionChange(
        key=new["key"],
        name=new["name"],
        fields=changed,
        phrases_added=_missing_from(old_phrases, new_phrases),
        phrases_removed=_missing_from(new_phrases, old_phrases),
        changes=tuple(
            FieldChange(name, old.get(name), new.get(name)) for name in changed if name != PHRASES
        ),
    )


def _entity_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> EntityChange:
    old_entries, new_entries = _entries(old), _entries(new)
    return EntityChange(
        name=new["name"],
        entries_added=tuple(v for v in new_entries if v not in old_entries),
        entries_removed=tuple(v for v in old_entries if v not in new_entries),
        entries_changed=tuple(
            v for v in new_entries if v in old_entries and old_entries[v] != new_entries[v]
        ),
    )


def _entries(entity: Mapping[str, Any]) -> dict[str, list[str]]:
    return {
        entry["value"]: sorted(synonym["value"] for synonym in entry["synonyms"])
        for entry in entity["entries"]
    }


def _missing_from(held: Sequence[str], given: Sequence[str]) -> tuple[str, ...]:
    """What `given` says that `held` does not, in `given`'s order."""
    known = set(held)
    return tuple(text for text in given if text not in known)
