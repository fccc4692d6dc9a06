"""A Rasa 2.x/3.x project as a Parley story document (docs/import-export.md, "The Rasa
importer"): the files read (rasa_project.py), then each intent an interaction
(rasa_tree.py links them), with its phrases and entities (rasa_nlu.py), responses
(rasa_dialogue.py) and the parameters of the forms it starts (rasa_forms.py). Plain
Python like the engine.
"""

from collections.abc import Mapping
from typing import Any

from bot_api.domain.interactions import entity_slots
from bot_api.domain.settings import language_named
from bot_api.transfer.limits import MAX_BLOCKS, MAX_PARAMETERS, MAX_USER_SAYS
from bot_api.transfer.rasa_dialogue import (
    NLU_FALLBACK,
    Conversation,
    intent_buttons,
    read_conversations,
    read_form_ends,
    response_blocks,
)
from bot_api.transfer.rasa_forms import Forms
from bot_api.transfer.rasa_nlu import Nlu, builtin_entities, entity_document, read_nlu
from bot_api.transfer.rasa_project import Project, read_project
from bot_api.transfer.rasa_tree import Node, Tree, sub_intents
from bot_api.transfer.report import Translated, TranslationError, Unmapped
from shared.fair_work import checkpoint

DEFAULT_NAME = "Rasa project"
"""A project's name when its config.yml has no `assistant_id`."""


def translate(files: Mapping[str, bytes]) -> Translated:
    """The story document of a Rasa project (its files as `archive.read_archive` gives
    them), and what it leaves out."""
    unmapped: list[Unmapped] = []
    project = read_project(files, unmapped)
    return Translation(project, unmapped).translated()


class Translation:
    """One project's translation: its parts are read once, then each interaction built."""

    def __init__(self, project: Project, unmapped: list[Unmapped]) -> None:
        self.project, self.unmapped = project, unmapped
        domain = project.domain
        nlu_sections = [(p, c["nlu"]) for p, c in project.data if isinstance(c.get("nlu"), list)]
        if not nlu_sections:
            raise TranslationError("data/: no NLU training data (a YAML file with an nlu: list)")
        self.nlu: Nlu = read_nlu(nlu_sections, builtin_entities(project.config), unmapped)
        self.responses: dict[str, Any] = dict(domain.get("responses") or {})
        forms = domain.get("forms") or {}
        self.forms = Forms(forms, domain.get("slots") or {}, self.responses, self.nlu, unmapped)
        self.conversations: list[Conversation] = []
        self.form_ends: dict[str, tuple[str, ...]] = {}
        for path, content in project.data:
            for kind in ("rules", "stories"):
                if isinstance(content.get(kind), list):
                    self.conversations += read_conversations(
                        path, kind, content[kind], self.forms.names, unmapped
                    )
                    read_form_ends(content[kind], self.forms.names, self.form_ends)
        for form, actions in self.form_ends.items():
            for action in actions:
                if action not in self.responses and not action.startswith("utter_"):
                    self.unmapped.append(
                        Unmapped(
                            f"domain: forms.{form}",
                            f"custom action '{action}' ending form '{form}'",
                            "its code is not imported; once filled, the form's interaction "
                            "says the responses of its end only",
                        )
                    )
        self.intents = self.intent_names()
        self.tree = Tree(
            self.intents, self.conversations, self.responses, self.forms.names, unmapped
        )
        self.used_responses: set[str] = set()
        self.block_cache: dict[str, list[dict[str, Any]]] = {}

    def intent_names(self) -> list[str]:
        """The intents with examples, then those the domain lists without any (a
        retrieval intent's parent excluded: its sub-intents are the interactions)."""
        names = [name for name in self.nlu.phrases if name != NLU_FALLBACK]
        for index, item in enumerate(self.project.domain.get("intents") or []):
            name = str(next(iter(item)) if isinstance(item, dict) else item)
            if name in names or name == NLU_FALLBACK or sub_intents(name, names):
                continue
            names.append(name)
            self.unmapped.append(
                Unmapped(
                    f"domain: intents[{index}]",
                    f"intent '{name}' without examples",
                    "its interaction has no phrases: only a button or goto reaches it",
                )
            )
        return names

    def translated(self) -> Translated:
        interactions = [self.interaction(node) for node in self.tree.ordered()]
        self.add_button_titles(interactions)
        parameters_entities = {
            parameter["entity"] for i in interactions for parameter in i["parameters"]
        }
        entities = [
            entity_document(name, self.nlu.values.get(name, {}), self.unmapped)
            for name in sorted(parameters_entities)
            if not name.startswith("sys.")
        ]
        self.report_leftovers(parameters_entities, interactions)
        language = self.language()
        document = {
            "format": "parley.story",
            "version": 1,
            "name": str(self.project.config.get("assistant_id") or DEFAULT_NAME),
            "description": "Imported from a Rasa project",
            "settings": {"language": language},
            "interactions": interactions,
            "entities": entities,
            "connections": [],
        }
        return Translated(document, tuple(self.unmapped))

    def add_button_titles(self, interactions: list[dict[str, Any]]) -> None:
        """A button the bot shows whose payload sends an intent alone (`/human_handoff`)
        adds its title to the intent's phrases: a quick reply, or a postback, sends the
        title as text, which must reach that intent (a title another interaction has as
        a phrase is left there)."""
        roots = {i["name"]: i for i in interactions if i["root"]}
        said = {phrase.lower() for i in interactions for phrase in i["userSays"]}
        for name in sorted(self.used_responses):
            for title, intent in intent_buttons(self.responses[name]):
                target = roots.get(intent)
                if (
                    target is not None
                    and title.lower() not in said
                    and len(target["userSays"]) < MAX_USER_SAYS
                ):
                    target["userSays"].append(title)
                    said.add(title.lower())

    def language(self) -> str:
        code = self.project.config.get("language")
        if code is None:
            return "english"
        named = language_named(str(code))
        if named is None:
            self.unmapped.append(
                Unmapped("config.yml: language", f"language '{code}'", "no story language: english")
            )
        return named or "english"

    def interaction(self, node: Node) -> dict[str, Any]:
        """A root holds its intent's phrases; a follow-up none (the engine answers the
        root's phrases with it after its question)."""
        checkpoint()
        place = self.nlu.places.get(node.intent, "domain: intents")
        phrases = self.nlu.phrases.get(node.intent, []) if node.root else []
        if len(phrases) > MAX_USER_SAYS and node.root:
            self.unmapped.append(
                Unmapped(
                    place,
                    f"{len(phrases) - MAX_USER_SAYS} examples of '{node.intent}'",
                    f"an interaction holds {MAX_USER_SAYS} phrases",
                )
            )
        if node.root and not node.answer and node.kind == "standard":
            self.unmapped.append(
                Unmapped(
                    place,
                    f"answer to '{node.intent}'",
                    "no rule or story answers it (outside a form): its interaction says nothing",
                )
            )
        phrases, parameters = self.phrases_and_parameters(node, phrases[:MAX_USER_SAYS], place)
        return {
            "key": node.key,
            "type": node.kind,
            "name": node.intent,
            "action": node.intent,
            "triggers": ["welcome"] if node.kind == "welcome" else [],
            "userSays": phrases,
            "parameters": parameters,
            "responses": self.answer_blocks(node),
            "webhook": "",
            "root": node.root,
            "contextOut": node.context_out,
            "references": node.references,
        }

    def phrases_and_parameters(
        self, node: Node, phrases: list[str], place: str
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """The slots of the forms the answer starts, in the order Rasa asks them (the
        engine asks the first empty one), with their prompts; then the phrases' other
        slots (an alias bound to two entities keeps the first)."""
        entity_of: dict[str, str] = {}
        kept = []
        for phrase in phrases:
            slots = entity_slots(phrase)
            if any(entity_of.get(alias, entity) != entity for entity, alias in slots):
                if node.root:
                    self.unmapped.append(
                        Unmapped(
                            place,
                            f"example '{phrase}'",
                            "its alias names another entity elsewhere in the intent",
                        )
                    )
                continue
            entity_of |= {alias: entity for entity, alias in slots}
            kept.append(phrase)
        by_phrase = {a: {"alias": a, "entity": e, "prompts": []} for a, e in entity_of.items()}
        asked: list[dict[str, Any]] = []
        for form in (a for a in node.answer if a in self.forms.names):
            for parameter in self.forms.parameters(form):
                alias = parameter["alias"]
                if entity_of.get(alias, parameter["entity"]) != parameter["entity"]:
                    self.unmapped.append(
                        Unmapped(
                            place,
                            f"slot '{alias}' of form '{form}'",
                            "the intent's phrases bind it to another entity",
                        )
                    )
                elif all(p["alias"] != alias for p in asked):
                    asked.append(dict(parameter))
                    by_phrase.pop(alias, None)
            self.used_responses |= self.forms.prompt_responses(form)
        parameters = [*asked, *by_phrase.values()]
        return kept, parameters[:MAX_PARAMETERS]

    def answer_blocks(self, node: Node) -> list[dict[str, Any]]:
        """The blocks of the answer's responses, within Parley's limits (11 blocks, one of
        quick replies)."""
        blocks: list[dict[str, Any]] = []
        for action in self.said(node.answer):
            name = self.response_name(action, node.intent)
            if name in self.responses:
                self.used_responses.add(name)
                if name not in self.block_cache:
                    goto = self.tree.roots
                    self.block_cache[name] = response_blocks(
                        name, self.responses[name], goto, self.unmapped
                    )
                blocks += self.block_cache[name]
            elif action.startswith("utter_"):
                self.unmapped.append(
                    Unmapped(f"interaction {node.key}", f"response '{action}'", "not in the domain")
                )
        quick_replies = [b for b in blocks if b["type"] == "quickReply"]
        kept = [b for b in blocks if b["type"] != "quickReply" or b is quick_replies[0]]
        if len(kept) < len(blocks) or len(kept) > MAX_BLOCKS:
            self.unmapped.append(
                Unmapped(
                    f"interaction {node.key}",
                    "response blocks",
                    f"at most {MAX_BLOCKS}, one of quick replies",
                )
            )
        return kept[:MAX_BLOCKS]

    def said(self, answer: tuple[str, ...]) -> tuple[str, ...]:
        """An answer's actions, with what its form says once filled when the answer ends
        with the form (a submit rule holds it, apart from the rule starting the form):
        the interaction's responses are said once its parameters are."""
        form = answer[-1] if answer else ""
        return (*answer, *self.form_ends.get(form, ())) if form in self.forms.names else answer

    def response_name(self, action: str, intent: str) -> str:
        """A retrieval intent's response `utter_faq` is `utter_faq/ask_x` for `faq/ask_x`."""
        parent, _, sub = intent.partition("/")
        if sub and action == f"utter_{parent}" and f"utter_{intent}" in self.responses:
            return f"utter_{intent}"
        return action

    def report_leftovers(self, used_entities: set[str], interactions: list[dict[str, Any]]) -> None:
        """Responses, slots and entities no interaction uses."""
        for name in self.responses:
            if name not in self.used_responses:
                self.unmapped.append(
                    Unmapped(
                        f"domain: responses.{name}",
                        "response",
                        "no rule, story or form prompt says it",
                    )
                )
        aliases = {p["alias"] for i in interactions for p in i["parameters"]}
        for slot in self.project.domain.get("slots") or {}:
            if slot not in aliases and slot != "requested_slot":
                self.unmapped.append(
                    Unmapped(
                        f"domain: slots.{slot}", "slot", "no phrase or form fills it as a parameter"
                    )
                )
        used_actions = {a for c in self.conversations for t in c.turns for a in t.actions}
        for index, action in enumerate(self.project.domain.get("actions") or []):
            if action not in used_actions and action not in self.responses:
                self.unmapped.append(
                    Unmapped(
                        f"domain: actions[{index}]",
                        f"custom action '{action}'",
                        "its code is not imported",
                    )
                )
        declared = [
            str(next(iter(e)) if isinstance(e, dict) else e)
            for e in self.project.domain.get("entities") or []
        ]
        for entity in dict.fromkeys([*declared, *self.nlu.values]):
            parley_name = self.nlu.slot_entity(entity)
            if parley_name not in used_entities:
                self.unmapped.append(
                    Unmapped(f"entity {entity}", "entity", "no phrase or form parameter uses it")
                )
