"""A Rasa project's files read (docs/import-export.md, "The Rasa importer"): its YAML as
Rasa reads it, the domain merged from its files, and the data files."""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import yaml

from bot_api.transfer import archive
from bot_api.transfer.report import TranslationError, Unmapped

YAML_SUFFIXES = (".yml", ".yaml")


YAML_1_1_ONLY = frozenset({"tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp"})
"""Resolvers YAML 1.2, which Rasa reads, does not have: `yes` and dates are text there."""


class RasaYamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader reading booleans as YAML 1.2 does, as Rasa's own reader does:
    only true and false. YAML 1.1 would make a button titled `Yes` the boolean True, and a
    date a date object.
    An alias (`*name`) is refused: a few of them make a file of billions of nodes."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not read", mark)
        return super().compose_node(parent, index)


RasaYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in YAML_1_1_ONLY]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
RasaYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def load_yaml(path: str, content: bytes) -> Any:
    """The file's YAML, holding only what JSON holds (no `!!binary`, no `!!set`)."""
    try:
        loaded = yaml.load(content.decode("utf-8-sig"), Loader=RasaYamlLoader)
    except UnicodeDecodeError:
        raise TranslationError(f"{path}: not UTF-8 text") from None
    except yaml.YAMLError as error:
        raise TranslationError(f"{path}: not valid YAML ({error})".replace("\n", " ")) from None
    try:
        json.dumps(loaded)
    except (TypeError, ValueError):
        raise TranslationError(f"{path}: holds a value JSON has no form for") from None
    return loaded


def load_mapping(path: str, content: bytes) -> dict[str, Any]:
    """A YAML file holding a mapping; an empty file is an empty one."""
    loaded = load_yaml(path, content)
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise TranslationError(
            f"{path}: a Rasa file holds a mapping, not a {type(loaded).__name__}"
        )
    return loaded


@dataclass
class Project:
    """The parts of a Rasa project a story is made from."""

    domain: dict[str, Any]
    config: dict[str, Any]
    data: list[tuple[str, dict[str, Any]]]


def read_project(files: Mapping[str, bytes], unmapped: list[Unmapped]) -> Project:
    """domain.yml (or the files of domain/, merged), config.yml and the YAML of data/."""
    marker = (
        "domain.yml" if any(PurePosixPath(p).name == "domain.yml" for p in files) else "config.yml"
    )
    files = archive.without_top_folder(dict(files), marker)
    domain_paths: list[str] = [p for p in ("domain.yml", "domain.yaml") if p in files] or sorted(
        p for p in files if p.startswith("domain/") and p.endswith(YAML_SUFFIXES)
    )
    if not domain_paths:
        raise TranslationError(
            "domain.yml: missing (a Rasa project has a domain.yml or a domain/ folder)"
        )
    domain: dict[str, Any] = {}
    for path in domain_paths:
        merge_domain(domain, load_mapping(path, files[path]))
    config = load_mapping("config.yml", files["config.yml"]) if "config.yml" in files else {}
    data = []
    for path in sorted(p for p in files if p.startswith("data/")):
        if path.endswith(YAML_SUFFIXES):
            data.append((path, load_mapping(path, files[path])))
        else:
            unmapped.append(
                Unmapped(path, "file", "not read: Rasa 2 and 3 training data is YAML (.yml)")
            )
    if isinstance(domain.get("templates"), dict):
        merge_domain(domain, {"responses": domain.pop("templates")})  # Rasa 1's name
    for _, content in data:
        merge_domain(domain, {"responses": content.get("responses") or {}})
    return Project(domain, config, data)


def merge_domain(domain: dict[str, Any], part: Mapping[str, Any]) -> None:
    """Rasa merges a domain split in files: lists are joined, mappings united."""
    for key, value in part.items():
        if isinstance(value, list) and isinstance(domain.get(key), list):
            domain[key] = [*domain[key], *value]
        elif isinstance(value, dict) and isinstance(domain.get(key), dict):
            domain[key] = {**domain[key], **value}
        else:
            domain[key] = value
