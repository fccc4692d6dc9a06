"""A story document as files a team keeps in git: one file per interaction and per
entity, so a change shows in a review as the change of the one thing it changed.

    story.yaml                 format, version, name, description, settings,
                               connections, and the keys of the interactions and
                               the names of the entities, in order
    interactions/<key>.yaml    one interaction
    entities/<name>.yaml       one entity
"""

from collections.abc import Mapping
from typing import Any

import yaml

from bot_api.transfer.report import TranslationError

STORY_FILE = "story.yaml"


def as_yaml(value: Any) -> str:
    """YAML as a person writes it: keys in the document's order, text as it is. libyaml
    writes the 1000 × 99 story in 0.3 s, PyYAML's own emitter in 4.4-5.5 s."""
    return yaml.dump(value, Dumper=yaml.CSafeDumper, allow_unicode=True, sort_keys=False, width=100)


def to_layout(document: Mapping[str, Any]) -> dict[str, str]:
    """Each file's path and text."""
    story = {
        name: value for name, value in document.items() if name not in {"interactions", "entities"}
    }
    story["interactions"] = [interaction["key"] for interaction in document["interactions"]]
    story["entities"] = [entity["name"] for entity in document["entities"]]
    files = {STORY_FILE: as_yaml(story)}
    for interaction in document["interactions"]:
        files[f"interactions/{interaction['key']}.yaml"] = as_yaml(interaction)
    for entity in document["entities"]:
        files[f"entities/{entity['name']}.yaml"] = as_yaml(entity)
    return files


def from_layout(files: Mapping[str, Any]) -> dict[str, Any]:
    """The document that parsed files of the layout make; a key or name listed in
    story.yaml with no file of its own is an error naming it."""
    story = files.get(STORY_FILE)
    if not isinstance(story, dict):
        raise TranslationError(f"{STORY_FILE} is missing or is not a mapping")
    return {
        **story,
        "interactions": _listed(files, story, "interactions"),
        "entities": _listed(files, story, "entities"),
    }


def _listed(files: Mapping[str, Any], story: Mapping[str, Any], folder: str) -> list[Any]:
    names = story.get(folder, [])
    if not isinstance(names, list):
        raise TranslationError(f"{STORY_FILE}: {folder} must be a list of file names")
    contents = []
    for name in names:
        path = f"{folder}/{name}.yaml"
        if path not in files:
            raise TranslationError(f"{STORY_FILE} lists {name!r} but {path} is missing")
        contents.append(files[path])
    return contents
