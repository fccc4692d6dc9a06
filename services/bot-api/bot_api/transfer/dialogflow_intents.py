"""A Dialogflow ES intent's training phrases and parameters as a story's userSays and
parameters.

Part of the Dialogflow ES translator (transfer/dialogflow.py; the mapping:
docs/import-export.md "Dialogflow ES"). An annotated part of a phrase becomes a
`{{entity:alias}}` slot when the story recognises its entity in a message; otherwise the
words stay as they were said, so the phrase still matches, and the parameter is read
from the whole answer to its prompt (`sys.any`).
"""

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from bot_api.domain.entities import (
    AMOUNT_OF_MONEY,
    ANY,
    DATE,
    DATE_TIME,
    DURATION,
    EMAIL,
    NUMBER,
    ORDINAL,
    PERCENTAGE,
    PHONE_NUMBER,
    TIME,
    URL,
)
from bot_api.transfer.dialogflow_responses import IntentTexts
from bot_api.transfer.limits import MAX_ALIAS, MAX_PHRASE, MAX_PROMPT, MAX_PROMPTS, MAX_USER_SAYS
from bot_api.transfer.report import Unmapped

SYSTEM_ENTITIES = {
    "sys.number": NUMBER,
    "sys.number-integer": NUMBER,
    "sys.cardinal": NUMBER,
    "sys.ordinal": ORDINAL,
    "sys.percentage": PERCENTAGE,
    "sys.date": DATE,
    "sys.time": TIME,
    "sys.date-time": DATE_TIME,
    "sys.date-period": DATE_TIME,
    "sys.duration": DURATION,
    "sys.unit-currency": AMOUNT_OF_MONEY,
    "sys.email": EMAIL,
    "sys.phone-number": PHONE_NUMBER,
    "sys.url": URL,
    "sys.any": ANY,
}
"""Dialogflow's system entities that have a built-in entity of the story."""
IGNORED = "sys.ignore"
"""Dialogflow's mark for words to read as plain words."""
TEMPLATE_SLOT = re.compile(r"@(sys\.[\w-]+|[\w-]+)(?::([\w-]+))?")
"""`@entity:alias` or `@entity` in the text of a template phrase (`isTemplate`)."""


def alias_of(name: str) -> str:
    """A parameter name as an alias may be written (letters, digits, `_`, `-`)."""
    return re.sub(r"[^\w-]", "_", name)[:MAX_ALIAS]


class IntentReader:
    """Reads one intent's parameters first, then its phrases: a phrase's slot may add a
    parameter the intent did not declare, as Dialogflow does."""

    def __init__(self, texts: IntentTexts, entities: frozenset[str], language: str) -> None:
        self.texts = texts
        self.entities = entities
        self.language = language
        self.parameters: dict[str, dict[str, Any]] = {}
        self.missing_entities: set[str] = set()

    def entity_for(self, data_type: str, place: str) -> str:
        """The story's entity for a Dialogflow `@entity`; `sys.any` for one it lacks
        (reported once an intent)."""
        entity = self._mapped(data_type)
        if entity == ANY and data_type != "@sys.any" and data_type not in self.missing_entities:
            self.missing_entities.add(data_type)
            self.texts.unmapped.append(
                Unmapped(
                    place,
                    f"entity {data_type!r}",
                    "no such entity in the story: its words stay plain in the phrases and the"
                    " parameter takes the whole answer to its prompt (sys.any)",
                )
            )
        return entity

    def read_parameters(self, declared: Sequence[Mapping[str, Any]]) -> None:
        for index, parameter in enumerate(declared):
            where = f"responses[0].parameters[{index}]"
            alias = alias_of(parameter.get("name", ""))
            if not alias or alias in self.parameters:
                self.texts.note(where, f"parameter {alias!r}", "no name, or a name used twice")
                continue
            prompts = self._prompts(parameter, where)
            if parameter.get("required") and not prompts:
                self.texts.note(
                    where,
                    f"required parameter {alias!r} without a prompt",
                    "kept optional: a story asks only for a parameter with prompts; add one"
                    " to have it asked",
                )
            if parameter.get("value", f"${alias}") not in (f"${alias}", f"${alias}.original"):
                self.texts.note(
                    where, f"value {parameter['value']!r}", "a parameter is read from what is said"
                )
            for flag, reason in (
                ("isList", "one value is kept"),
                ("defaultValue", "an unfilled parameter stays empty"),
            ):
                if parameter.get(flag):
                    self.texts.note(where, f"{flag} of {alias!r}", reason)
            entity = self.entity_for(
                parameter.get("dataType") or "@sys.any", f"{self.texts.path}: {where}"
            )
            self.parameters[alias] = {"alias": alias, "entity": entity, "prompts": prompts}

    def speaking(self, language: str) -> "IntentReader":
        """The reader of the intent's phrases and prompts in another of the agent's
        languages, adding to the same parameters and report."""
        other = copy.copy(self)
        other.language = language
        return other

    def prompts_of(self, declared: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
        """The declared parameters' prompts in the reader's language, where it has some."""
        prompts = {
            alias_of(p.get("name", "")): self._prompts(p, f"responses[0].parameters[{index}]")
            for index, p in enumerate(declared)
        }
        return {alias: said for alias, said in prompts.items() if said and alias in self.parameters}

    def _prompts(self, parameter: Mapping[str, Any], where: str) -> list[str]:
        """The prompts in the agent's language, only for a parameter Dialogflow asks for."""
        if not parameter.get("required"):
            return []
        prompts = [
            self.texts.cut(self.texts.text(prompt["value"], where), MAX_PROMPT, where, "prompt")
            for prompt in parameter.get("prompts", [])
            if prompt.get("lang", self.language) == self.language and prompt.get("value")
        ]
        if len(prompts) > MAX_PROMPTS:
            self.texts.note(where, "prompts past the 99th", "a parameter has at most 99")
        return prompts[:MAX_PROMPTS]

    def read_phrases(self, said: Sequence[Mapping[str, Any]], path: str) -> list[str]:
        """The phrases, each once; those past the 99th are reported."""
        phrases: list[str] = []
        for index, phrase in enumerate(said):
            place = f"{path}: [{index}]"
            text = self._phrase(phrase, place).strip()
            if len(text) > MAX_PHRASE:
                self.texts.unmapped.append(
                    Unmapped(place, "phrase over 2048 characters", "a phrase holds at most 2048")
                )
            elif text and text not in phrases:
                phrases.append(text)
        if len(phrases) > MAX_USER_SAYS:
            self.texts.unmapped.append(
                Unmapped(
                    path,
                    f"{len(phrases) - MAX_USER_SAYS} phrases past the 99th",
                    "an interaction has at most 99",
                )
            )
        return phrases[:MAX_USER_SAYS]

    def _phrase(self, phrase: Mapping[str, Any], place: str) -> str:
        pieces = phrase.get("data", [])
        if phrase.get("isTemplate"):
            text = "".join(piece.get("text", "") for piece in pieces)
            return TEMPLATE_SLOT.sub(lambda match: self._template_slot(match, place), text)
        return "".join(self._piece(piece, place) for piece in pieces)

    def _piece(self, piece: Mapping[str, Any], place: str) -> str:
        text = str(piece.get("text", ""))
        meta, alias = piece.get("meta", ""), alias_of(piece.get("alias", ""))
        if not meta or not alias or meta == f"@{IGNORED}":
            return text
        return self._slot(meta, alias, place) or text

    def _template_slot(self, match: re.Match[str], place: str) -> str:
        name = match.group(1)
        if not name.startswith("sys.") and name not in self.entities:
            return match.group(0)  # an e-mail address or a word, not a slot
        alias = match.group(2) or name.removeprefix("sys.")
        return self._slot(f"@{name}", alias, place) or alias

    def _slot(self, meta: str, alias: str, place: str) -> str | None:
        """The slot of an annotated part, declaring its parameter if the intent did not;
        None where the words are better kept plain."""
        known = self.parameters.get(alias)
        entity = known["entity"] if known else self.entity_for(meta, place)
        if known is None:
            self.parameters[alias] = {"alias": alias, "entity": entity, "prompts": []}
            self.texts.aliases.add(alias)
        elif known["entity"] != self._mapped(meta):
            self.texts.unmapped.append(
                Unmapped(
                    place,
                    f"annotation {meta}:{alias}",
                    f"the parameter {alias!r} is of entity {known['entity']!r}: words kept plain",
                )
            )
            return None
        return None if entity == ANY else "{{" + entity + ":" + alias + "}}"

    def _mapped(self, data_type: str) -> str:
        name = data_type.removeprefix("@")
        return SYSTEM_ENTITIES.get(name) or (name if name in self.entities else ANY)
