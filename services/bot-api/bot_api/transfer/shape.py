"""Bounds on the shape of what an import parses (a document, each JSON and YAML file of a
ZIP or a form), checked before the value is built or translated (docs/reliability.md
"Imports within bounds").

libyaml builds a document by recursion in C (a process died of SIGSEGV on 50,000 nested
`[`), its event parse is quadratic on nesting (10,000 levels 3.1 s, 30,000 27.5 s) and a
value deeper than Python's recursion limit breaks every later step (`json.dumps`,
validation). A list of a million items (2 MB of YAML) took 23 minutes to validate. So a
YAML text is first read as libyaml's event stream (no value built, no recursion) and the
read stops at the first event beyond a bound: linear in the text, and at most
`MAX_NODES` events. A JSON text is parsed by the standard library's decoder, which is
linear and itself stops at Python's recursion limit (RecursionError), and the value is
then walked level by level (no recursion). The bounds are far above any real import.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from bot_api.transfer.report import TranslationError

MAX_DEPTH = 32
"""Levels of nesting: a story document's deepest field (a button of a card's response)
sits at depth 6, a Dialogflow intent's custom payload at 8 levels of its own; the API
refuses a JSON body deeper than 32 (shared/json_body.py) too."""

MAX_MEMBERS = 10_000
"""Items of one list or mapping: twice a story's largest list (5,000 interactions, the
default quota), above a Dialogflow intent's most training phrases (2,000) and an
entity's entries (2,000)."""

MAX_NODES = 500_000
"""Lists, mappings and scalars of one upload, all its files together: the generated
1000 × 99 story (3.3 MB, near the 4 MiB body limit) holds 97,000 in JSON and 103,000 in
YAML, the largest sample agent or project 1,139 (place-finder). libyaml gives ~260,000
events a second here (0.39 s for that story), so a refusal at the bound takes ~2 s."""


class ShapeRefused(TranslationError):
    """An upload nested deeper, or holding more, than any real import."""


@dataclass
class Budget:
    """What is left of one upload's `MAX_NODES`, spent file by file."""

    nodes: int = MAX_NODES

    def spend(self, place: str, count: int = 1) -> None:
        self.nodes -= count
        if self.nodes < 0:
            raise ShapeRefused(
                f"{place}: the upload holds more than {MAX_NODES} lists, mappings and values in all"
            )


class _EventReader(yaml.CSafeLoader):
    """libyaml's parser, read event by event."""


def check_yaml(text: str, place: str, budget: Budget) -> None:
    """Refuse `text` (ShapeRefused naming `place`) when it nests deeper than MAX_DEPTH,
    has a list or mapping of more than MAX_MEMBERS items, more nodes than `budget` has
    left, or an alias (`*name`: a few of them can make a document of billions of nodes,
    the "billion laughs"). yaml.YAMLError for a text that is no YAML."""
    children: list[int] = []
    """The number of nodes directly in each collection open, the outermost first."""
    limits: list[int] = []
    for event in yaml.parse(text, _EventReader):
        if isinstance(event, yaml.AliasEvent):
            raise ShapeRefused(f"{place}: YAML aliases (*name) are not read")
        if isinstance(event, yaml.CollectionEndEvent):
            children.pop()
            limits.pop()
            continue
        if not isinstance(event, yaml.NodeEvent):
            continue
        budget.spend(place)
        if children:
            children[-1] += 1
            if children[-1] > limits[-1]:
                raise _too_many(place)
        if isinstance(event, yaml.CollectionStartEvent):
            if len(children) == MAX_DEPTH:
                raise _too_deep(place)
            children.append(0)
            is_mapping = isinstance(event, yaml.MappingStartEvent)
            limits.append(2 * MAX_MEMBERS if is_mapping else MAX_MEMBERS)


def parse_json(text: str, place: str, budget: Budget) -> Any:
    """The JSON value of `text`, refused (ShapeRefused) beyond the bounds; ValueError for
    a text that is no JSON."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise _too_deep(place) from None
    check_value(value, place, budget)
    return value


def check_value(value: Any, place: str, budget: Budget) -> None:
    """`check_yaml` for a value already built, one level at a time."""
    level = [value]
    depth = 1
    while level:
        budget.spend(place, len(level))
        below: list[Any] = []
        for node in level:
            if isinstance(node, dict | list):
                if depth > MAX_DEPTH:
                    raise _too_deep(place)
                if len(node) > MAX_MEMBERS:
                    raise _too_many(place)
                below.extend(node.values() if isinstance(node, dict) else node)
        level = below
        depth += 1


def check_files(files: Mapping[str, bytes]) -> None:
    """Every JSON and YAML file of an upload within the bounds, all of them within one
    MAX_NODES. A file that does not parse is left to the importer, which says so."""
    budget = Budget()
    for path, data in files.items():
        if not path.endswith((".json", ".yml", ".yaml")):
            continue
        try:
            text = data.decode("utf-8-sig")
            if path.endswith(".json"):
                parse_json(text, path, budget)
            else:
                check_yaml(text, path, budget)
        except (UnicodeDecodeError, yaml.YAMLError):
            continue
        except ShapeRefused:
            raise
        except ValueError:
            continue


def _too_deep(place: str) -> ShapeRefused:
    return ShapeRefused(f"{place}: nested deeper than {MAX_DEPTH} levels")


def _too_many(place: str) -> ShapeRefused:
    return ShapeRefused(f"{place}: a list or mapping holds more than {MAX_MEMBERS} items")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
