"""Parley's own story document (docs/import-export.md): interactions named by keys, never
by ids, so a story can leave one account or server and come back in another.

`to_document` writes a story's document; `read_document` turns a document (as the
schema loaded it) into what an import writes, with every problem found and its place,
so that an import creates the whole story or nothing.
"""

import re
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anyascii import anyascii

from bot_api.domain.errors import Invalid, Path
from bot_api.domain.interactions import FALLBACK, STANDARD, WELCOME
from bot_api.domain.structure import Context, Structure
from bot_api.transfer.limits import MAX_KEY_BASE
from shared.fair_work import checkpoint

FORMAT = "parley.story"
VERSION = 1
KEY_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
r"""ASCII, so a key means the same to every tool that reads the document: a file name of
the git layout, a JSON Schema pattern (ECMA's `\w` is ASCII, Python's is not)."""
_NOT_IN_KEY = re.compile(r"[^a-z0-9_.-]+")


@dataclass(frozen=True)
class StoryContent:
    """What a story document says of the story itself and its interactions, by id."""

    name: str
    description: str
    settings: Mapping[str, Any]
    structure: Structure
    interactions: Mapping[str, Mapping[str, Any]]
    """Each interaction's fields as the API writes them (`type` included), by id."""
    connection_names: Mapping[str, str] = field(default_factory=dict)
    """The name of each webhook connection the interactions name, by its id."""
    awaited: Mapping[str, str] = field(default_factory=dict)
    """The connection an imported interaction without a webhook is to call once the
    story has a connection of that name, by the interaction's id."""
    awaited_handoffs: Mapping[str, str] = field(default_factory=dict)
    """The connection an imported interaction without a handoff block is to hand over to
    once the story has a connection of that name, by the interaction's id."""


@dataclass(frozen=True)
class Problem:
    """Something in a document an import cannot write: at `path` of the document."""

    path: Path
    message: str


@dataclass(frozen=True)
class ReadStory:
    """A document read for an import: the story with new ids, the connections each
    interaction calls (by name), the problems found, and the welcome or fallback the
    story is to get because the document lacks it."""

    content: StoryContent
    """Its interactions: the document's, each as the document writes it, less its place."""
    keys: Mapping[str, str]
    """The key of each new id."""
    index_of: Mapping[str, int]
    """The place of each new id in the document's interactions."""
    connections: Mapping[str, str]
    """The connection name an interaction calls, by its new id."""
    handoffs: Mapping[str, str]
    """The connection name an interaction hands over to, by its new id."""
    problems: tuple[Problem, ...]
    added: Mapping[str, str]
    """The new id of each type ("welcome", "fallback") the document lacks: the story
    gets its default one."""


def key_base(name: str) -> str:
    """A name as a key: in ASCII letters (anyascii transliterates: "Grüße" is "grusse",
    "你好" "nihao"), lower case, any other character than a letter, digit, `_`, `.` or `-`
    as `-`."""
    return _NOT_IN_KEY.sub("-", anyascii(name).lower()).strip("-") or "interaction"


class Keys:
    """Keys told apart: a base taken already gets `-2`, `-3`...; a long one is cut to
    leave room for that within a key's 128 characters."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def make(self, base: str) -> str:
        base = base[:MAX_KEY_BASE]
        key, number = base, 1
        while key in self._taken:
            number += 1
            key = f"{base}-{number}"
        self._taken.add(key)
        return key


def keys_for(names: Iterable[str]) -> list[str]:
    """A key per name, in order (`key_base`, told apart by `Keys`)."""
    keys = Keys()
    return [keys.make(key_base(name)) for name in names]


def to_document(
    story: StoryContent,
    entities: Sequence[Mapping[str, Any]],
    tests: Sequence[Mapping[str, Any]] = (),
    knowledge: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The story's document: interactions in tree order, each root followed by what it
    owns, so the same story always gives the same document. `tests` (docs/tests.md) are
    written only when the story has some, so a story without any gives the document it
    gave before tests existed; so are its documents' (`knowledge`, docs/knowledge.md)."""
    order = story.structure.walk()
    key_of = dict(zip(order, keys_for(story.interactions[i]["name"] for i in order), strict=True))
    interactions = []
    for interaction_id in order:
        checkpoint()
        interaction = dict(story.interactions[interaction_id])
        context = story.structure.contexts[interaction_id]
        webhook = interaction.pop("webhook")
        connection = story.connection_names.get(webhook) or (
            None if webhook else story.awaited.get(interaction_id)
        )
        responses = [r for r in interaction["responses"] if r["type"] != "handoff"]
        handoff = _handoff_name(story, interaction_id, interaction["responses"])
        interactions.append(
            {
                "key": key_of[interaction_id],
                **interaction,
                "responses": [_keyed_buttons(r, key_of) for r in responses],
                **({"connection": connection} if connection else {"webhook": webhook}),
                **({"handoff": handoff} if handoff else {}),
                "root": context.root,
                "contextOut": [key_of[i] for i in context.context_out],
                "references": [key_of[i] for i in context.references],
            }
        )
    used = sorted(
        {i[name] for i in interactions for name in ("connection", "handoff") if name in i}
    )
    document = {
        "format": FORMAT,
        "version": VERSION,
        "name": story.name,
        "description": story.description,
        "settings": dict(story.settings),
        "interactions": interactions,
        "entities": [dict(entity) for entity in entities],
        "connections": used,
    }
    if tests:
        document["tests"] = [dict(test) for test in tests]
    if knowledge:
        document["knowledge"] = [dict(written) for written in knowledge]
    return document


def _handoff_name(
    story: StoryContent, interaction_id: str, responses: Sequence[Mapping[str, Any]]
) -> str | None:
    """The name of the connection an interaction hands over to (its handoff block's, or
    the one it awaits); None without one, or when the connection is gone."""
    for block in responses:
        if block["type"] == "handoff":
            return story.connection_names.get(block["connection"])
    return story.awaited_handoffs.get(interaction_id)


def _keyed_buttons(block: Mapping[str, Any], key_of: Mapping[str, str]) -> dict[str, Any]:
    """A stored button whose postback is an interaction of the story says its key."""
    if "buttons" not in block:
        return dict(block)
    buttons = [
        {"title": b["title"], "goto": key_of[b["postback"]]} if b["postback"] in key_of else dict(b)
        for b in block["buttons"]
    ]
    return {**block, "buttons": buttons}


def read_document(
    document: Mapping[str, Any], new_id: Callable[[], str] = lambda: str(uuid.uuid4())
) -> ReadStory:
    """The story a loaded document describes, with a new id for each key, and one for
    the welcome or fallback it lacks."""
    problems: list[Problem] = []
    interactions: Sequence[Mapping[str, Any]] = document["interactions"]
    id_of: dict[str, str] = {}
    index_of: dict[str, int] = {}
    for index, interaction in enumerate(interactions):
        checkpoint()
        key = interaction["key"]
        if key in id_of:
            problems.append(Problem(("interactions", index, "key"), f"{key!r} is used twice"))
        else:
            id_of[key] = new_id()
            index_of[id_of[key]] = index

    contents: dict[str, dict[str, Any]] = {}
    contexts: dict[str, Context] = {}
    connections: dict[str, str] = {}
    handoffs: dict[str, str] = {}
    order: list[str] = []
    permanent: dict[str, str] = {}
    for index, interaction in enumerate(interactions):
        checkpoint()
        place: Path = ("interactions", index)
        interaction_id = id_of.get(interaction["key"])
        if interaction_id is None or interaction_id in contents:
            continue
        kind = interaction.get("type", STANDARD)
        if kind in (WELCOME, FALLBACK):
            if kind in permanent:
                problems.append(Problem((*place, "type"), f"a second {kind} interaction"))
            permanent.setdefault(kind, interaction_id)
            if not interaction.get("root", True):
                problems.append(Problem((*place, "root"), f"the {kind} interaction stays root"))
        content = {
            name: value
            for name, value in interaction.items()
            if name not in {"key", "root", "contextOut", "references", "connection", "handoff"}
        }
        content["type"] = kind
        content["responses"] = [
            _resolved_buttons(block, id_of, (*place, "responses", i), problems)
            for i, block in enumerate(interaction.get("responses", []))
        ]
        if "connection" in interaction:
            connections[interaction_id] = interaction["connection"]
        if "handoff" in interaction:
            handoffs[interaction_id] = interaction["handoff"]
        contents[interaction_id] = content
        linked = {}
        for name in ("contextOut", "references"):
            linked[name] = tuple(
                _resolved_keys(interaction.get(name, []), id_of, (*place, name), problems)
            )
        root = interaction.get("root", True)
        contexts[interaction_id] = Context(root, linked["contextOut"], linked["references"])
        if root:
            order.append(interaction_id)

    added = {}
    for kind in (WELCOME, FALLBACK):
        if kind not in permanent:
            permanent[kind] = added[kind] = new_id()
            contexts[added[kind]] = Context(root=True)
            order.append(added[kind])

    structure = Structure(tuple(order), contexts, frozenset(permanent.values()))
    if not problems:
        try:
            structure = structure.checked()
        except Invalid as error:
            message = _with_keys(error.message, id_of)
            problems.append(Problem(_structure_place(error.path, index_of), message))
    return ReadStory(
        content=StoryContent(
            name=document["name"],
            description=document.get("description", ""),
            settings=document.get("settings", {}),
            structure=structure,
            interactions=contents,
        ),
        keys={interaction_id: key for key, interaction_id in id_of.items()},
        index_of=index_of,
        connections=connections,
        handoffs=handoffs,
        problems=tuple(problems),
        added=added,
    )


def _resolved_keys(
    keys: Iterable[str], id_of: Mapping[str, str], place: Path, problems: list[Problem]
) -> list[str]:
    resolved = []
    for index, key in enumerate(keys):
        if key in id_of:
            resolved.append(id_of[key])
        else:
            problems.append(Problem((*place, index), f"no interaction has the key {key!r}"))
    return resolved


def _resolved_buttons(
    block: Mapping[str, Any], id_of: Mapping[str, str], place: Path, problems: list[Problem]
) -> dict[str, Any]:
    """A button's `goto` key becomes the postback naming that interaction's new id."""
    if "buttons" not in block:
        return dict(block)
    buttons = []
    for index, button in enumerate(block["buttons"]):
        if "goto" not in button:
            buttons.append(dict(button))
            continue
        target = id_of.get(button["goto"])
        if target is None:
            problems.append(
                Problem(
                    (*place, "buttons", index, "goto"),
                    f"no interaction has the key {button['goto']!r}",
                )
            )
        buttons.append({"title": button["title"], "postback": target or button["title"]})
    return {**block, "buttons": buttons}


def _with_keys(message: str, id_of: Mapping[str, str]) -> str:
    """A structure rule's message, which names interactions by id, naming them by key."""
    key_of = {interaction_id: key for key, interaction_id in id_of.items()}
    ids = re.compile("|".join(re.escape(i) for i in sorted(key_of, key=len, reverse=True)))
    return ids.sub(lambda found: key_of[found[0]], message)


def _structure_place(path: Path, index_of: Mapping[str, int]) -> Path:
    """A structure error's place in the document: an interaction's index for its id."""
    if path and path[0] in index_of:
        return ("interactions", index_of[str(path[0])], *path[1:])
    return ("interactions",)
