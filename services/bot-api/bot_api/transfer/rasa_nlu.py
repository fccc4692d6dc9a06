"""Rasa NLU training data as Parley phrases and entities (docs/import-export.md, "The
Rasa importer").

An annotated example (`[large](size)`, `[big](size:large)`, `[big]{"entity": "size",
"value": "large", "role": "drink"}`) becomes a phrase with a `{{entity:alias}}` slot
(alias = role, else entity) and makes its text a synonym of its value's entry: Parley
reads a slot by the entity's synonyms, so every annotated text must be one. Synonym and
lookup sections add entries the same way.
"""

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot_api.domain import entities as builtin
from bot_api.transfer.limits import MAX_ENTRIES, MAX_PHRASE, MAX_SYNONYMS, MAX_VALUE
from bot_api.transfer.report import Unmapped
from shared.fair_work import checkpoint

ANNOTATION = re.compile(
    r"\[(?P<text>[^\]]+)\]"
    r"(?:\((?P<short>[^)]+)\)|(?P<single>\{[^}]*\})|(?P<several>\[\s*\{.*?\}\s*\]))"
)
"""Rasa's three forms: `(entity[:value])`, one JSON object, a JSON list of objects."""

NOT_A_NAME_CHARACTER = re.compile(r"[^\w-]")

DUCKLING_BUILTINS = {
    "number": builtin.NUMBER,
    "ordinal": builtin.ORDINAL,
    "time": builtin.DATE_TIME,
    "duration": builtin.DURATION,
    "amount-of-money": builtin.AMOUNT_OF_MONEY,
    "email": builtin.EMAIL,
    "phone-number": builtin.PHONE_NUMBER,
    "url": builtin.URL,
}
"""Duckling's dimensions, each a Rasa entity of that name, and Parley's built-in entity
for it (Duckling's `distance`, `volume`, `temperature`, `credit-card-number` have none)."""


def name_of(text: str) -> str:
    """An entity name or alias Parley takes (`^[\\w-]+$`): other characters become `-`."""
    return NOT_A_NAME_CHARACTER.sub("-", text.strip()) or "-"


def builtin_entities(config: Mapping[str, Any]) -> dict[str, str]:
    """The Rasa entities a DucklingEntityExtractor of the pipeline fills, and the built-in
    entity each stands for: an email Duckling finds is Parley's `sys.email`."""
    found: dict[str, str] = {}
    for component in config.get("pipeline") or []:
        if isinstance(component, Mapping) and component.get("name") == "DucklingEntityExtractor":
            dimensions = component.get("dimensions") or list(DUCKLING_BUILTINS)
            found |= {d: DUCKLING_BUILTINS[d] for d in dimensions if d in DUCKLING_BUILTINS}
    return found


@dataclass
class Nlu:
    """What the NLU sections hold, ready to become interactions and entities."""

    phrases: dict[str, list[str]] = field(default_factory=dict)
    """Each intent's phrases, in the order of the files, without repeats."""
    places: dict[str, str] = field(default_factory=dict)
    """Where each intent is defined."""
    values: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """Each custom entity's entries: value -> synonyms (the value first)."""
    builtins: dict[str, str] = field(default_factory=dict)
    """Rasa entity -> Parley built-in entity (Duckling's)."""
    times: dict[str, Counter[str]] = field(default_factory=dict)
    """Each intent's phrases, with how many of its examples read as each."""

    def add_value(self, entity: str, value: str, synonym: str) -> None:
        synonyms = self.values.setdefault(entity, {}).setdefault(value, [value])
        if synonym not in synonyms:
            synonyms.append(synonym)

    def slot_entity(self, entity: str) -> str:
        """The Parley entity of a Rasa entity in a slot."""
        return self.builtins.get(entity) or name_of(entity)


def example_lines(examples: Any) -> list[str]:
    """The examples of a section: a `- ` list in a block string (the usual form), or a
    YAML list of strings or of `{text: ...}`."""
    if isinstance(examples, str):
        lines = (line.strip() for line in examples.splitlines())
        return [line[1:].strip() for line in lines if line.startswith("-") and line[1:].strip()]
    if isinstance(examples, list):
        texts = (item.get("text") if isinstance(item, Mapping) else item for item in examples)
        return [str(text).strip() for text in texts if text is not None and str(text).strip()]
    return []


def read_nlu(
    sections: Sequence[tuple[str, Sequence[Any]]],
    builtins: Mapping[str, str],
    unmapped: list[Unmapped],
) -> Nlu:
    """The intents and entities of every `nlu:` list, given with the file it is in."""
    nlu = Nlu(builtins=dict(builtins))
    synonym_sections: list[tuple[str, str, list[str]]] = []
    for path, items in sections:
        for index, item in enumerate(items):
            checkpoint()
            place = f"{path}: nlu[{index}]"
            if not isinstance(item, Mapping):
                unmapped.append(Unmapped(place, "NLU item", "not a mapping"))
            elif "intent" in item:
                read_intent(nlu, str(item["intent"]), item.get("examples"), place, unmapped)
            elif "synonym" in item:
                synonym_sections.append(
                    (place, str(item["synonym"]), example_lines(item.get("examples")))
                )
            elif "lookup" in item:
                entity = name_of(str(item["lookup"]))
                for value in example_lines(item.get("examples")):
                    nlu.add_value(entity, value, value)
            elif "regex" in item:
                unmapped.append(
                    Unmapped(
                        place,
                        f"regex '{item['regex']}'",
                        "Parley entities are lists of values, not patterns; add the values "
                        "the pattern stands for as entries",
                    )
                )
            else:
                unmapped.append(Unmapped(place, "NLU item", f"unknown keys {sorted(item)}"))
    for place, value, synonyms in synonym_sections:
        add_synonyms(nlu, place, value, synonyms, unmapped)
    keep_each_phrase_once(nlu, unmapped)
    return nlu


def keep_each_phrase_once(nlu: Nlu, unmapped: list[Unmapped]) -> None:
    """A phrase in several intents stays in the one with the most examples reading as it
    (`[Berlin](city)` 300 times in inform, `[Ahh](city)` once in express_surprise: both
    `{{city:city}}`): the engine cannot tell apart interactions that say the same."""
    owners: dict[str, list[str]] = {}
    for intent, phrases in nlu.phrases.items():
        for phrase in phrases:
            owners.setdefault(phrase, []).append(intent)
    for phrase, intents in owners.items():
        if len(intents) < 2:
            continue
        keeper = max(intents, key=lambda intent: nlu.times[intent][phrase])
        for intent in intents:
            if intent != keeper:
                nlu.phrases[intent].remove(phrase)
                unmapped.append(
                    Unmapped(
                        nlu.places[intent],
                        f"example '{phrase}' of '{intent}'",
                        f"also an example of '{keeper}', which has it more often: a phrase "
                        "answers one interaction",
                    )
                )


def read_intent(nlu: Nlu, intent: str, examples: Any, place: str, unmapped: list[Unmapped]) -> None:
    phrases = nlu.phrases.setdefault(intent, [])
    nlu.places.setdefault(intent, place)
    for index, line in enumerate(example_lines(examples)):
        example_place = f"{place}.examples[{index}]"
        phrase = annotated_phrase(nlu, line, example_place, unmapped)
        if len(phrase) > MAX_PHRASE:
            unmapped.append(
                Unmapped(example_place, "example", f"longer than {MAX_PHRASE} characters")
            )
        else:
            if phrase not in phrases:
                phrases.append(phrase)
            nlu.times.setdefault(intent, Counter())[phrase] += 1


def annotated_phrase(nlu: Nlu, line: str, place: str, unmapped: list[Unmapped]) -> str:
    """The example with each annotation as a `{{entity:alias}}` slot; its text becomes a
    synonym of the value it stands for."""

    def slot(match: re.Match[str]) -> str:
        text = match["text"]
        if match["short"]:
            entity, _, value = match["short"].partition(":")
            annotation: dict[str, Any] = {"entity": entity, "value": value or text}
        else:
            annotation = first_annotation(match["single"] or match["several"], place, unmapped)
        entity = str(annotation.get("entity") or "").strip()
        if not entity:
            unmapped.append(Unmapped(place, f"annotation {match[0]}", "it names no entity"))
            return text
        if "group" in annotation:
            unmapped.append(Unmapped(place, f"group of '{entity}'", "Parley has no entity groups"))
        if entity not in nlu.builtins:
            nlu.add_value(name_of(entity), str(annotation.get("value") or text), text)
        alias = name_of(str(annotation.get("role") or entity))
        return "{{" + nlu.slot_entity(entity) + ":" + alias + "}}"

    return ANNOTATION.sub(slot, line)


def first_annotation(given: str, place: str, unmapped: list[Unmapped]) -> dict[str, Any]:
    """The annotation a JSON form holds; of a list, the first (Parley gives a piece of
    a phrase one entity)."""
    try:
        parsed = json.loads(given)
    except (json.JSONDecodeError, RecursionError):
        unmapped.append(Unmapped(place, f"annotation {given}", "not valid JSON"))
        return {}
    if isinstance(parsed, list):
        if len(parsed) > 1:
            unmapped.append(
                Unmapped(place, f"annotation {given}", "a slot has one entity: the first is kept")
            )
        parsed = parsed[0] if parsed else {}
    return parsed if isinstance(parsed, dict) else {}


def add_synonyms(
    nlu: Nlu, place: str, value: str, synonyms: list[str], unmapped: list[Unmapped]
) -> None:
    """A synonym section names a value, not its entity: the synonyms join every entity
    that has the value as an entry."""
    owners = [entity for entity, entries in nlu.values.items() if value in entries]
    if not owners:
        unmapped.append(
            Unmapped(
                place,
                f"synonym '{value}'",
                "no annotation or lookup gives an entity this value; add it to an entity",
            )
        )
    for entity in owners:
        for synonym in synonyms:
            nlu.add_value(entity, value, synonym)


def entity_document(
    name: str, entries: Mapping[str, list[str]], unmapped: list[Unmapped]
) -> dict[str, Any]:
    """A Parley entity within its limits: at most 2000 entries of 99 synonyms."""
    kept: list[dict[str, Any]] = []
    for value, synonyms in entries.items():
        fitting = [s for s in synonyms if len(s) <= MAX_VALUE]
        if len(value) > MAX_VALUE or len(kept) == MAX_ENTRIES:
            unmapped.append(
                Unmapped(f"entity {name}", f"value '{value[:80]}'", "beyond Parley's limits")
            )
            continue
        if len(fitting) > MAX_SYNONYMS:
            unmapped.append(
                Unmapped(
                    f"entity {name}",
                    f"{len(fitting) - MAX_SYNONYMS} synonyms of '{value}'",
                    f"an entry holds at most {MAX_SYNONYMS}",
                )
            )
        kept.append({"value": value, "synonyms": [{"value": s} for s in fitting[:MAX_SYNONYMS]]})
    return {"name": name, "entries": kept}
