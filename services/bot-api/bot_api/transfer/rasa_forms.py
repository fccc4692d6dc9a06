"""Rasa forms as Parley's required parameters (docs/import-export.md, "The Rasa importer").

A form asks for its slots in turn until each is filled; a Parley interaction does the
same with its parameters that have prompts. So the interaction whose answer starts a
form gets one parameter per slot Parley can read: a `from_entity` slot reads its
entity, a `from_text` slot the whole answer (`sys.any`), and the prompts are the texts
of `utter_ask_<form>_<slot>`, else `utter_ask_<slot>`, its buttons the replies shown with
them.
"""

import json
import re
from collections.abc import Mapping
from typing import Any

from bot_api.domain.entities import ANY
from bot_api.transfer.limits import MAX_PROMPT, MAX_PROMPTS, MAX_REPLIES, MAX_REPLY
from bot_api.transfer.rasa_dialogue import with_slots
from bot_api.transfer.rasa_nlu import Nlu, name_of
from bot_api.transfer.report import Unmapped

FORM_SETTINGS = frozenset({"required_slots", "ignored_intents"})
VALUES_PAYLOAD = re.compile(r"^/[^{}\s]+(\{.*\})$")
"""A button payload sending an intent with entity values: `/inform{"account": "credit"}`."""


class Forms:
    def __init__(
        self,
        forms: Mapping[str, Any],
        slots: Mapping[str, Any],
        responses: Mapping[str, Any],
        nlu: Nlu,
        unmapped: list[Unmapped],
    ) -> None:
        self.slots, self.responses = slots, responses
        self.nlu, self.unmapped = nlu, unmapped
        self.forms = forms if isinstance(forms, Mapping) else self.in_code(forms)
        self.names = frozenset(self.forms)
        self._parameters: dict[str, list[dict[str, Any]]] = {}
        self._prompts: dict[str, set[str]] = {}

    def in_code(self, names: Any) -> dict[str, Any]:
        """Rasa 1's forms, listed by name: each a FormAction whose slots, questions and
        end are in its code. The interactions starting them ask nothing."""
        forms: dict[str, Any] = {}
        for index, name in enumerate(names if isinstance(names, list) else []):
            forms[str(name)] = {}
            self.unmapped.append(
                Unmapped(
                    f"domain: forms[{index}]",
                    f"form '{name}'",
                    "a Rasa 1 form: its slots are asked in its code (required_slots), not "
                    "imported; its interaction asks nothing",
                )
            )
        return forms

    def required_slots(self, form: str) -> dict[str, list[Any]]:
        """Each slot the form asks for, with its mappings: Rasa 3 lists the slots and maps
        them in `slots:`; Rasa 2 maps them in the form (`required_slots:` or the form
        itself)."""
        definition = self.forms.get(form) or {}
        required = (
            definition.get("required_slots", definition) if isinstance(definition, Mapping) else []
        )
        if isinstance(required, Mapping):
            return {str(s): list(m or []) for s, m in required.items() if s not in FORM_SETTINGS}
        found = {}
        for slot in required if isinstance(required, list) else []:
            definition = self.slots.get(slot)
            mappings = definition.get("mappings") if isinstance(definition, Mapping) else None
            found[str(slot)] = list(mappings or [])
        return found

    def parameters(self, form: str) -> list[dict[str, Any]]:
        """The form's slots as parameters, built (and what they lose reported) once."""
        if form not in self._parameters:
            self._parameters[form], self._prompts[form] = [], set()
            for slot, mappings in self.required_slots(form).items():
                parameter = self.parameter(form, slot, mappings)
                if parameter is not None:
                    self._parameters[form].append(parameter)
        return self._parameters[form]

    def prompt_responses(self, form: str) -> set[str]:
        self.parameters(form)
        return self._prompts[form]

    def parameter(self, form: str, slot: str, mappings: list[Any]) -> dict[str, Any] | None:
        place = f"domain: forms.{form}.{slot}"
        entity = self.entity(slot, mappings, place)
        if entity is None:
            kinds = sorted({str(m.get("type")) for m in mappings if isinstance(m, Mapping)})
            in_code = not kinds or "custom" in kinds
            self.unmapped.append(
                Unmapped(
                    place,
                    f"slot '{slot}' ({', '.join(kinds) or 'no mapping'})",
                    "Rasa fills it in code (a custom action or a validate_ action): not "
                    "asked; a webhook on the interaction could fill it"
                    if in_code
                    else "only from_entity and from_text slots become parameters: not asked",
                )
            )
            return None
        prompt_name = next(
            (n for n in (f"utter_ask_{form}_{slot}", f"utter_ask_{slot}") if n in self.responses),
            None,
        )
        prompts, replies = ([], []) if prompt_name is None else self.prompts(prompt_name, place)
        if prompt_name is not None:
            self._prompts[form].add(prompt_name)
            self.button_values(self.buttons(prompt_name), slot, entity)
        if not prompts:
            self.unmapped.append(
                Unmapped(
                    place,
                    f"prompt of slot '{slot}'",
                    "no utter_ask_ text: the parameter is optional",
                )
            )
        parameter: dict[str, Any] = {"alias": name_of(slot), "entity": entity, "prompts": prompts}
        if prompts and replies:
            parameter["promptReplies"] = replies
        return parameter

    def entity(self, slot: str, mappings: list[Any], place: str) -> str | None:
        """The first mapping Parley can read: an entity with values (or a built-in one),
        else the whole answer."""
        for mapping in mappings:
            kind = mapping.get("type") if isinstance(mapping, Mapping) else None
            if kind == "from_entity":
                entity = str(mapping.get("entity"))
                if entity in self.nlu.builtins or name_of(entity) in self.nlu.values:
                    return self.nlu.slot_entity(entity)
                self.unmapped.append(
                    Unmapped(
                        place,
                        f"entity '{entity}' of slot '{slot}'",
                        "no example, synonym or lookup gives it values: the slot takes the answer",
                    )
                )
                return ANY
            if kind == "from_text":
                return ANY
        return None

    def prompts(self, name: str, place: str) -> tuple[list[str], list[str]]:
        """The prompt's texts, and its buttons' titles as the replies shown with it (a
        click sends the title: cut to a reply's 20 characters, 11 at most, reported)."""
        texts = [
            with_slots(str(variant["text"]))
            for variant in self.variants(name)
            if variant.get("text") is not None
        ]
        if any(set(v) - {"text", "buttons"} for v in self.variants(name)):
            self.unmapped.append(
                Unmapped(f"domain: responses.{name}", "images of a prompt", "a prompt is text")
            )
        kept = [text for text in texts if len(text) <= MAX_PROMPT][:MAX_PROMPTS]
        if len(kept) < len(texts):
            self.unmapped.append(Unmapped(place, "prompts", "at most 99 of 1024 characters"))
        said = (str(b.get("title") or "") for b in self.buttons(name))
        titles = list(dict.fromkeys(title for title in said if title.strip()))
        replies = list(dict.fromkeys(title[:MAX_REPLY] for title in titles))[:MAX_REPLIES]
        if replies != titles:
            self.unmapped.append(
                Unmapped(
                    f"domain: responses.{name}",
                    "buttons of a prompt",
                    f"at most {MAX_REPLIES} replies of {MAX_REPLY} characters: cut",
                )
            )
        return kept, replies

    def variants(self, name: str) -> list[Mapping[str, Any]]:
        variants = self.responses[name] if isinstance(self.responses[name], list) else []
        return [v for v in variants if isinstance(v, Mapping)]

    def buttons(self, name: str) -> list[Mapping[str, Any]]:
        """The buttons of the prompt's variants that have a text."""
        return [
            button
            for variant in self.variants(name)
            if variant.get("text") is not None
            for button in variant.get("buttons") or []
            if isinstance(button, Mapping)
        ]

    def button_values(self, buttons: list[Mapping[str, Any]], slot: str, entity: str) -> None:
        """Each button whose payload sets the slot (or its entity) to a value: its title
        (and the reply it is cut to) becomes a synonym of that value of the parameter's
        entity, so its click fills the slot."""
        if entity == ANY or entity.startswith("sys."):
            return
        for button in buttons:
            payload = VALUES_PAYLOAD.match(str(button.get("payload") or ""))
            try:
                values = json.loads(payload[1]) if payload else {}
            except (json.JSONDecodeError, RecursionError):
                continue
            value = values.get(slot, values.get(entity)) if isinstance(values, dict) else None
            if value is not None and button.get("title"):
                title = str(button["title"])
                for synonym in dict.fromkeys((title, title[:MAX_REPLY])):
                    self.nlu.add_value(entity, str(value), synonym)
