"""Rules an interaction obeys beyond the shape of its fields (docs/api.md "Interactions").

Input and output are the API's own dicts (camelCase keys), already shape-checked by
the schemas; these functions add what needs the whole interaction, or its previous
version, to decide.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot_api.domain.errors import Clash, Invalid
from bot_api.domain.greetings import texts_for
from bot_api.domain.responses import (
    Block,
    Button,
    ButtonTemplate,
    Card,
    Image,
    QuickReplies,
    TextChoice,
)

WELCOME = "welcome"
FALLBACK = "fallback"
STANDARD = "standard"
WELCOME_TRIGGER = "welcome"
MAX_PARAMETERS = 99
MAX_USER_SAYS = 99
MAX_TRIGGERS = 1024
MAX_NAME_LENGTH = 128

ENTITY_SLOT = re.compile(r"\{\{\s*((?:sys\.)?[\w-]+)\s*:\s*([\w-]+)\s*\}\}")
"""`{{entity:alias}}`; a built-in entity's name begins with `sys.` (domain/entities.py)."""


@dataclass(frozen=True)
class Parameter:
    alias: str
    entity: str
    prompts: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        """A parameter is required exactly when it has prompts to ask for it."""
        return bool(self.prompts)


@dataclass(frozen=True)
class Interaction:
    """An interaction as the conversation engine reads it."""

    id: str
    kind: str
    name: str
    action: str
    triggers: tuple[str, ...]
    user_says: tuple[str, ...]
    parameters: tuple[Parameter, ...]
    responses: tuple[Block, ...]
    webhook: str

    def parameter(self, alias: str) -> Parameter:
        return next(p for p in self.parameters if p.alias == alias)


EMPTY_INTERACTION: dict[str, Any] = {
    "action": "",
    "triggers": [],
    "userSays": [],
    "parameters": [],
    "responses": [],
    "webhook": "",
}


def default_interactions(language: str = "english") -> list[dict[str, Any]]:
    """The welcome and fallback interactions every new story starts with, answering
    greetings and speaking in the story's language (domain/greetings.py)."""
    texts = texts_for(language)
    return [
        {
            **EMPTY_INTERACTION,
            "type": WELCOME,
            "name": "Welcome",
            "action": "welcome",
            "triggers": [WELCOME_TRIGGER],
            "userSays": list(texts.greetings),
            "responses": [{"type": "text", "messages": [texts.welcome]}],
        },
        {
            **EMPTY_INTERACTION,
            "type": FALLBACK,
            "name": "Fallback",
            "action": "fallback",
            "responses": [{"type": "text", "messages": list(texts.fallback)}],
        },
    ]


def entity_slots(phrase: str) -> list[tuple[str, str]]:
    """The (entity, alias) pairs a user-says phrase refers to, in order."""
    return ENTITY_SLOT.findall(phrase)


def prepare(
    interaction: Mapping[str, Any],
    kind: str = STANDARD,
    previous: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Apply rules 2 and 3 (docs/api.md) and check the whole-interaction rules; return
    what to store."""
    result = dict(interaction)
    parameters = [dict(p) for p in result["parameters"]]
    aliases = [p["alias"] for p in parameters]
    for index, alias in enumerate(aliases):
        if alias in aliases[:index]:
            raise Invalid.at(("parameters", index, "alias"), f"{alias!r} is used twice")

    user_says = list(result["userSays"])
    if previous is not None:
        removed = {p["alias"] for p in previous["parameters"]} - set(aliases)
        stripped = (strip_slots(phrase, removed) for phrase in user_says)
        user_says = [phrase for phrase in stripped if phrase]  # a slot alone leaves nothing

    entity_of = {p["alias"]: p["entity"] for p in parameters}
    for index, phrase in enumerate(user_says):
        for entity, alias in entity_slots(phrase):
            if max(len(entity), len(alias)) > MAX_NAME_LENGTH:
                raise Invalid.at(
                    ("userSays", index),
                    f"an entity or alias in {{{{entity:alias}}}} is longer than {MAX_NAME_LENGTH}",
                )
            bound = entity_of.setdefault(alias, entity)
            if bound == entity and alias not in aliases:
                parameters.append({"alias": alias, "entity": entity, "prompts": []})
                aliases.append(alias)
            elif bound != entity:
                raise Invalid.at(
                    ("userSays", index),
                    f"parameter {alias!r} is bound to entity {bound!r}, not {entity!r}",
                )
    if len(parameters) > MAX_PARAMETERS:
        raise Invalid.at(
            ("parameters",),
            f"{len(parameters)} with those used in userSays; at most {MAX_PARAMETERS}",
        )

    result["userSays"] = user_says
    result["parameters"] = parameters
    result["triggers"] = _checked_triggers(list(result["triggers"]), kind)
    quick_replies = [i for i, r in enumerate(result["responses"]) if r["type"] == "quickReply"]
    if len(quick_replies) > 1:
        raise Invalid.at(
            ("responses", quick_replies[1]), "an interaction has at most one quickReply block"
        )
    return result


def strip_slots(phrase: str, aliases: set[str]) -> str:
    """Remove the slots of the given aliases from a phrase (rule 3)."""
    if not aliases:
        return phrase
    stripped = ENTITY_SLOT.sub(
        lambda match: "" if match.group(2) in aliases else match.group(0), phrase
    )
    return " ".join(stripped.split())


def _checked_triggers(triggers: list[str], kind: str) -> list[str]:
    """Triggers are case-insensitive; the welcome interaction always keeps `welcome`."""
    seen: set[str] = set()
    for index, trigger in enumerate(triggers):
        folded = trigger.lower()
        if folded in seen:
            raise Invalid.at(("triggers", index), f"{trigger!r} is listed twice")
        if folded == WELCOME_TRIGGER and kind != WELCOME:
            raise Invalid.at(
                ("triggers", index), f"{trigger!r} is reserved for the welcome interaction"
            )
        seen.add(folded)
    if kind == WELCOME and WELCOME_TRIGGER not in seen:
        triggers.insert(0, WELCOME_TRIGGER)
    if len(triggers) > MAX_TRIGGERS:
        raise Invalid.at(
            ("triggers",), f"at most {MAX_TRIGGERS}, the welcome interaction's 'welcome' included"
        )
    return triggers


def is_required(parameter: Mapping[str, Any]) -> bool:
    """Rule 1: a parameter is required exactly when it has prompts to ask for it."""
    return bool(parameter["prompts"])


def referenced_entities(interaction: Mapping[str, Any]) -> set[str]:
    return {p["entity"] for p in interaction["parameters"]}


def check_unique_triggers(
    interaction_id: str | None,
    triggers: Iterable[str],
    triggers_of_others: Mapping[str, Iterable[str]],
) -> None:
    """A trigger starts exactly one interaction of a story."""
    wanted = {t.lower() for t in triggers}
    for other_id, other_triggers in triggers_of_others.items():
        if other_id == interaction_id:
            continue
        clash = wanted & {t.lower() for t in other_triggers}
        if clash:
            raise Clash(f"trigger {sorted(clash)[0]!r} is already used by interaction {other_id}")


def interaction_from_content(
    interaction_id: str, kind: str, content: Mapping[str, Any]
) -> Interaction:
    """The interaction whose fields are `content`, in the shape the API accepts and the
    database stores."""
    return Interaction(
        id=interaction_id,
        kind=kind,
        name=content["name"],
        action=content["action"],
        triggers=tuple(content["triggers"]),
        user_says=tuple(content["userSays"]),
        parameters=tuple(
            Parameter(p["alias"], p["entity"], tuple(p["prompts"])) for p in content["parameters"]
        ),
        responses=tuple(_block(response) for response in content["responses"]),
        webhook=content["webhook"],
    )


def _buttons(buttons: Iterable[Mapping[str, str]]) -> tuple[Button, ...]:
    return tuple(Button(b["title"], b["postback"]) for b in buttons)


def _block(stored: Mapping[str, Any]) -> Block:
    kind = stored["type"]
    if kind == "text":
        return TextChoice(tuple(stored["messages"]))
    if kind == "quickReply":
        return QuickReplies(stored["title"], tuple(stored["replies"]))
    if kind == "image":
        return Image(stored["imageUrl"])
    if kind == "card":
        return Card(
            stored["title"], stored["subtitle"], stored["imageUrl"], _buttons(stored["buttons"])
        )
    return ButtonTemplate(stored["title"], _buttons(stored["buttons"]))
