"""A Dialogflow ES agent's map entities as the story document's entities, with their
entries in each further language; regexp and composite entities are reported
(docs/import-export.md, "Dialogflow ES")."""

import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from bot_api.transfer.dialogflow_files import companion, in_folder, json_file, reading
from bot_api.transfer.limits import MAX_ENTRIES, MAX_SYNONYMS, MAX_VALUE
from bot_api.transfer.report import Unmapped
from shared.fair_work import checkpoint


def map_entities(
    files: Mapping[str, bytes], code: str, further: Mapping[str, str], unmapped: list[Unmapped]
) -> dict[str, dict[str, Any]]:
    """The map entities by name, with their entries in each further language; regexp and
    composite ones are reported."""
    entities: dict[str, dict[str, Any]] = {}
    for path in in_folder(files, "entities", "entries"):
        with reading(path, "entity"):
            entity = _entity(files, path, code, unmapped)
            if entity:
                translations = {
                    story_code: _entries(
                        rows, f"{path.removesuffix('.json')}_entries_{agent_code}.json", unmapped
                    )
                    for story_code, agent_code in further.items()
                    if (rows := companion(files, path, "entries", agent_code))
                }
                if translations:
                    entity["translations"] = translations
        if entity:
            entities[entity["name"]] = entity
    return entities


def _entity(
    files: Mapping[str, bytes], path: str, code: str, unmapped: list[Unmapped]
) -> dict[str, Any] | None:
    """A map entity with its entries in the agent's language; None for one reported."""
    definition = json_file(files, path, dict)
    name = str(definition.get("name", PurePosixPath(path).stem))
    rows = companion(files, path, "entries", code)
    if definition.get("isRegexp"):
        unmapped.append(Unmapped(path, f"regexp entity {name!r}", "a story's entities are lists"))
        return None
    if any("@" in synonym for row in rows for synonym in row.get("synonyms", [])):
        unmapped.append(
            Unmapped(path, f"composite entity {name!r}", "a story's entities are lists")
        )
        return None
    if not re.fullmatch(r"[\w-]{1,128}", name) or name.startswith("sys."):
        unmapped.append(Unmapped(path, f"entity {name!r}", "no valid name of a story's entity"))
        return None
    if definition.get("automatedExpansion"):
        unmapped.append(
            Unmapped(path, "automatedExpansion", "only the listed values are recognised")
        )
    entries_path = f"{path.removesuffix('.json')}_entries_{code}.json"
    return {"name": name, "entries": _entries(rows, entries_path, unmapped)}


def _entries(rows: list[Any], path: str, unmapped: list[Unmapped]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, row in enumerate(rows):
        checkpoint()
        value = str(row.get("value", "")).strip()[:MAX_VALUE]
        if not value or value in seen:
            unmapped.append(Unmapped(f"{path}: [{index}]", f"entry {value!r}", "empty or repeated"))
            continue
        seen.add(value)
        synonyms = list(
            dict.fromkeys([value, *(s.strip()[:MAX_VALUE] for s in row.get("synonyms", []))])
        )
        synonyms = [s for s in synonyms if s]
        if len(synonyms) > MAX_SYNONYMS:
            unmapped.append(
                Unmapped(
                    f"{path}: [{index}]",
                    f"{len(synonyms) - MAX_SYNONYMS} synonyms past the 99th",
                    "at most 99",
                )
            )
        entries.append(
            {"value": value, "synonyms": [{"value": s} for s in synonyms[:MAX_SYNONYMS]]}
        )
    if len(entries) > MAX_ENTRIES:
        unmapped.append(
            Unmapped(path, f"{len(entries) - MAX_ENTRIES} entries past the 2000th", "at most 2000")
        )
    return entries[:MAX_ENTRIES]
