"""A Dialogflow ES agent export as a Parley story document (docs/import-export.md,
"Dialogflow ES": the mapping and what is not mapped).

An export is `agent.json`, `package.json`, `intents/<Name>.json` with
`intents/<Name>_usersays_<lang>.json`, and `entities/<Name>.json` with
`entities/<Name>_entries_<lang>.json`. Each intent becomes an interaction named exactly
after it, so a team finds its bot again; what the story cannot hold is reported, never
dropped silently. Phrases and parameters: transfer/dialogflow_intents.py; messages:
transfer/dialogflow_responses.py; contexts: transfer/dialogflow_contexts.py.
"""

import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any
from zoneinfo import available_timezones

from bot_api.domain.interactions import FALLBACK, STANDARD, WELCOME, WELCOME_TRIGGER, strip_slots
from bot_api.domain.settings import LANGUAGE_TAGS, MAX_LANGUAGES, language_code, language_named
from bot_api.transfer import archive
from bot_api.transfer.dialogflow_contexts import IntentNode, link
from bot_api.transfer.dialogflow_entities import map_entities
from bot_api.transfer.dialogflow_files import companion, in_folder, json_file, reading
from bot_api.transfer.dialogflow_intents import IntentReader, alias_of
from bot_api.transfer.dialogflow_responses import IntentTexts, response_blocks
from bot_api.transfer.document import Keys, key_base
from bot_api.transfer.limits import (
    MAX_DESCRIPTION,
    MAX_PARAMETERS,
)
from bot_api.transfer.report import Translated, TranslationError, Unmapped

MARKER = "agent.json"
DEFAULT_NAME = "Dialogflow agent"
TRIGGER = re.compile(r"^[A-Za-z0-9]{1,50}$")
KIND_ORDER = (WELCOME, STANDARD, FALLBACK)
"""Roots in the order of a new story: the welcome first, the fallback last."""


def translate(files: Mapping[str, bytes]) -> Translated:
    """The story document of an agent export (`files`: what `archive.read_archive` reads)."""
    files = archive.without_top_folder(dict(files), MARKER)
    agent = json_file(files, MARKER, dict)
    code = str(agent.get("language", ""))
    language = language_named(code)
    if language is None:
        raise TranslationError(f"agent.json: {code!r} is no language a story can have")
    if "package.json" in files:
        json_file(files, "package.json", dict)
    unmapped: list[Unmapped] = []
    with reading(MARKER, "agent"):
        settings = _settings(agent, language, unmapped)
        name = _name(agent)
    further = _further_languages(agent, settings, unmapped)
    entities = map_entities(files, code, further, unmapped)
    nodes = _intents(files, code, further, frozenset(entities), unmapped)
    interactions = link(nodes, unmapped)
    used = {p["entity"] for i in interactions for p in i["parameters"]}
    for name in sorted(set(entities) - used):
        unmapped.append(
            Unmapped(f"entities/{name}.json", f"entity {name!r}", "used by no intent: not imported")
        )
    document = {
        "format": "parley.story",
        "version": 1,
        "name": name,
        "description": _cut(
            str(agent.get("description", "")), MAX_DESCRIPTION, "agent.json: description", unmapped
        ),
        "settings": settings,
        "interactions": interactions,
        "entities": [entities[name] for name in sorted(entities) if name in used],
        "connections": [],
    }
    return Translated(document, tuple(unmapped))


def _name(agent: Mapping[str, Any]) -> str:
    """An export names its agent only in the Google project it answers for, if at all."""
    project = agent.get("googleAssistant", {}).get("project", "")
    return str(agent.get("displayName") or agent.get("name") or project or DEFAULT_NAME)[:1024]


def _settings(agent: Mapping[str, Any], language: str, unmapped: list[Unmapped]) -> dict[str, Any]:
    """The language and timezone; the agent's webhook is reported."""
    if agent.get("webhook", {}).get("available"):
        unmapped.append(
            Unmapped("agent.json: webhook", "the agent's fulfillment", "left for a connection")
        )
    settings: dict[str, Any] = {"language": language}
    timezone = agent.get("defaultTimezone", "")
    if timezone in available_timezones():
        settings["timezone"] = timezone
    elif timezone:
        unmapped.append(
            Unmapped("agent.json: defaultTimezone", f"timezone {timezone!r}", "no IANA name: UTC")
        )
    return settings


def _further_languages(
    agent: Mapping[str, Any], settings: dict[str, Any], unmapped: list[Unmapped]
) -> dict[str, str]:
    """The agent's `supportedLanguages` a story speaks: story code -> the agent's code (its
    files' suffix), also set as the story's `languages`. Others are reported."""
    further: dict[str, str] = {}
    default = LANGUAGE_TAGS[settings["language"]]
    for given in agent.get("supportedLanguages", []):
        code = language_code(str(given))
        if code is None:
            unmapped.append(
                Unmapped(
                    "agent.json: supportedLanguages",
                    f"language {given!r}",
                    "no language a story can have",
                )
            )
        elif code != default and code not in further and len(further) < MAX_LANGUAGES:
            further[code] = str(given)
    if further:
        settings["languages"] = list(further)
    return further


def _intents(
    files: Mapping[str, bytes],
    code: str,
    further: Mapping[str, str],
    entities: frozenset[str],
    unmapped: list[Unmapped],
) -> list[IntentNode]:
    bodies = {
        path: json_file(files, path, dict) for path in in_folder(files, "intents", "usersays")
    }
    context_aliases: dict[str, set[str]] = {}
    events: dict[str, list[str]] = {}
    for path, body in bodies.items():
        with reading(path, "intent"):
            events[path] = [str(event["name"]) for event in body.get("events", [])]
            response = (body.get("responses") or [{}])[0]
            aliases = {alias_of(p.get("name", "")) for p in response.get("parameters", [])}
            for context in response.get("affectedContexts", []):
                if context.get("lifespan", 5) > 0:
                    context_aliases.setdefault(context["name"].lower(), set()).update(aliases)
    welcome = _welcome_intent(events)
    fallback = next(
        (
            p
            for p, body in bodies.items()
            if body.get("fallbackIntent") and not body.get("contexts") and p != welcome
        ),
        None,
    )
    kinds = {
        path: WELCOME if path == welcome else FALLBACK if path == fallback else STANDARD
        for path in bodies
    }
    keys = Keys()
    triggers: set[str] = {WELCOME_TRIGGER}
    nodes = []
    for path in sorted(bodies, key=lambda p: KIND_ORDER.index(kinds[p])):
        body, kind = bodies[path], kinds[path]
        with reading(path, "intent"):
            node = _intent(
                files, path, body, kind, (code, further), entities, context_aliases, unmapped
            )
        node.interaction["key"] = keys.make(key_base(node.interaction["name"]))
        node.interaction["triggers"] = _triggers(path, events[path], kind, triggers, unmapped)
        if body.get("fallbackIntent") and kind != FALLBACK:
            unmapped.append(
                Unmapped(
                    path,
                    "fallback intent" + (" bound to contexts" if body.get("contexts") else ""),
                    "a story has one fallback, answering anywhere: a standard interaction",
                )
            )
        nodes.append(node)
    return nodes


def _welcome_intent(events: Mapping[str, list[str]]) -> str | None:
    """The intent of the `WELCOME` event, else the first of a platform's `*_WELCOME`."""
    exact = [path for path, names in events.items() if "WELCOME" in names]
    platform = [path for path, names in events.items() if any(map(_is_welcome, names))]
    return next(iter(exact + platform), None)


def _is_welcome(event: str) -> bool:
    return event == "WELCOME" or event.endswith("_WELCOME")


def _intent(
    files: Mapping[str, bytes],
    path: str,
    body: Mapping[str, Any],
    kind: str,
    languages: tuple[str, Mapping[str, str]],
    entities: frozenset[str],
    context_aliases: Mapping[str, set[str]],
    unmapped: list[Unmapped],
) -> IntentNode:
    """`languages`: the agent's default code, and its further ones by story code."""
    code, further = languages
    response = (body.get("responses") or [{}])[0]
    declared = {alias_of(p.get("name", "")) for p in response.get("parameters", [])}
    texts = IntentTexts(path, declared, context_aliases)
    reader = IntentReader(texts, entities, code)
    reader.read_parameters(response.get("parameters", []))
    usersays = f"{path.removesuffix('.json')}_usersays_{code}.json"
    phrases = reader.read_phrases(companion(files, path, "usersays", code), usersays)
    parameters = list(reader.parameters.values())
    if len(parameters) > MAX_PARAMETERS:
        dropped = {p["alias"] for p in parameters[MAX_PARAMETERS:]}
        unmapped.append(Unmapped(path, f"parameters {', '.join(sorted(dropped))}", "at most 99"))
        parameters = parameters[:MAX_PARAMETERS]
        phrases = [kept for phrase in phrases if (kept := strip_slots(phrase, dropped))]
    texts.aliases = {p["alias"] for p in parameters}
    responses = response_blocks(response.get("messages", []), code, texts)
    translations = {
        story_code: translation
        for story_code, agent_code in further.items()
        if (
            translation := _translation(
                files, path, response, reader.speaking(agent_code), responses
            )
        )
    }
    unmapped += texts.unmapped
    for flag, element in (
        ("webhookUsed", "webhook fulfillment"),
        ("webhookForSlotFilling", "webhook for slot filling"),
    ):
        if body.get(flag):
            unmapped.append(Unmapped(f"{path}: {flag}", element, "left for a connection"))
    if response.get("resetContexts"):
        unmapped.append(
            Unmapped(
                f"{path}: resetContexts", "reset of every context", "a story's contexts end alone"
            )
        )
    interaction: dict[str, Any] = {
        "key": "",
        "type": kind,
        "name": str(body.get("name") or PurePosixPath(path).stem),
        "action": str(response.get("action", ""))[:1024],
        "triggers": [],
        "userSays": phrases,
        "parameters": parameters,
        "responses": responses,
        "webhook": "",
    }
    if translations:
        interaction["translations"] = translations
    return IntentNode(
        path=path,
        intent_id=str(body.get("id", "")),
        parent_id=str(body.get("parentId") or ""),
        needs=tuple(str(c).lower() for c in body.get("contexts", [])),
        sets={
            str(c["name"]).lower(): int(c.get("lifespan", 5))
            for c in response.get("affectedContexts", [])
        },
        interaction=interaction,
    )


def _translation(
    files: Mapping[str, bytes],
    path: str,
    response: Mapping[str, Any],
    reader: IntentReader,
    default_responses: list[dict[str, Any]],
) -> dict[str, Any]:
    """The intent in one further language: its phrases, its messages where they differ
    from the default language's, and its prompts; empty when it has none of them."""
    code = reader.language
    usersays = f"{path.removesuffix('.json')}_usersays_{code}.json"
    phrases = reader.read_phrases(companion(files, path, "usersays", code), usersays)
    responses = response_blocks(response.get("messages", []), code, reader.texts)
    prompts = reader.prompts_of(response.get("parameters", []))
    translation: dict[str, Any] = {}
    if phrases:
        translation["userSays"] = phrases
    if responses and responses != default_responses:
        translation["responses"] = responses
    if prompts:
        translation["parameters"] = [{"alias": a, "prompts": p} for a, p in prompts.items()]
    return translation


def _triggers(
    path: str, events: list[str], kind: str, taken: set[str], unmapped: list[Unmapped]
) -> list[str]:
    """The welcome takes every `*WELCOME` event as its `welcome` trigger; an event of
    letters and digits becomes a trigger; the others are reported."""
    triggers = [WELCOME_TRIGGER] if kind == WELCOME else []
    for index, name in enumerate(events):
        place = f"{path}: events[{index}]"
        if _is_welcome(name):
            if kind != WELCOME:
                unmapped.append(Unmapped(place, f"event {name!r}", "another intent is the welcome"))
        elif not TRIGGER.fullmatch(name) or name.lower() in taken:
            unmapped.append(
                Unmapped(
                    place, f"event {name!r}", "a trigger is 1 to 50 letters and digits, unique"
                )
            )
        else:
            taken.add(name.lower())
            triggers.append(name)
    return triggers


def _cut(value: str, limit: int, place: str, unmapped: list[Unmapped]) -> str:
    if len(value) > limit:
        unmapped.append(Unmapped(place, f"text of {len(value)} characters", f"cut to {limit}"))
    return value[:limit]
