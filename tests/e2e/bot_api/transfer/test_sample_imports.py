"""The real bots of ../shared/samples imported through the API at the defaults (the
semantic stage on): each intent's own training phrases, each sent in a new
conversation, are answered by the interaction named after the intent (at least 95 % of a
sample's phrases; a Dialogflow intent that needs an input context is asked in it), the
answers are the bot's own, and export → import → export gives the same document.

The phrases are read from the bots' files here, not from what the importer made of them."""

import asyncio
import dataclasses
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.config import Config
from support.api import Api, Tenant
from support.samples import SAMPLES, zipped

GOAL = 0.95
VECTORS_TIMEOUT = 90.0
PROBE = "could you maybe tell me something about it"
ANNOTATION = re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\{[^}]*\})")


@dataclasses.dataclass(frozen=True)
class Asked:
    intent: str
    phrase: str
    context: str | None = None
    """The intent whose context this one needs: its interaction is entered first in the
    same conversation (a `goto`, its required parameters given), as a user who finished
    it would be."""


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, semantic_matching=True)


def rasa_phrases(project: Path) -> list[Asked]:
    asked = []
    for file in sorted((project / "data").rglob("*.yml")):
        for item in yaml.safe_load(file.read_text()).get("nlu", []):
            if "intent" not in item:
                continue
            lines = item["examples"].splitlines()
            for line in lines:
                text = ANNOTATION.sub(r"\1", line.strip().removeprefix("- ").strip())
                if text:
                    asked.append(Asked(item["intent"], text))
    return asked


def rasa_rule_answers(project: Path) -> dict[str, list[str]]:
    """The texts of the response a one-turn rule answers each intent with."""
    domain = yaml.safe_load((project / "domain.yml").read_text())
    answers = {}
    for file in sorted((project / "data").rglob("*.yml")):
        for rule in yaml.safe_load(file.read_text()).get("rules", []):
            steps = rule.get("steps", [])
            if len(steps) == 2 and "intent" in steps[0] and "condition" not in rule:
                response = domain.get("responses", {}).get(steps[1].get("action"))
                if response:
                    answers[steps[0]["intent"]] = [v["text"] for v in response if "text" in v]
    return answers


async def import_zip(api: Api, data: bytes) -> dict[str, Any]:
    reply = await api.send_raw("/stories/import", data, "application/zip")
    assert reply.status == 200, reply.body
    return dict(reply.body)


async def ask(api: Api, story_id: str, session: str, query: str) -> dict[str, Any]:
    body = {"storyId": story_id, "sessionId": session, "query": query, "debug": True}
    result: dict[str, Any] = (await api.ok("POST", "/query", body))["result"]
    return result


async def semantic_ready(api: Api, story_id: str) -> None:
    """Until the phrase vectors have landed: an exact phrase or a clear lexical winner is
    answered without the semantic stage, so the probe is no phrase of the story."""
    deadline = time.monotonic() + VECTORS_TIMEOUT
    while True:
        candidates = (await ask(api, story_id, "probe", PROBE))["debug"]["candidates"]
        if candidates and candidates[0]["semantic"] is not None:
            return
        assert time.monotonic() < deadline, "the phrase vectors never landed"
        await asyncio.sleep(0.5)


async def answered_share(
    api: Api, story_id: str, report: dict[str, Any], asked: list[Asked]
) -> tuple[float, list[Any]]:
    """The share of phrases the interaction named after their intent answers, and the
    misses."""
    ids = {i["name"]: i["id"] for i in report["interactions"]}
    misses = []
    for number, question in enumerate(asked):
        session = f"s{number}"
        if question.context is not None:
            await enter(api, story_id, session, ids[question.context])
        result = await ask(api, story_id, session, question.phrase)
        name = result["interaction"]["name"] if result.get("interaction") else None
        if name != question.intent:
            misses.append((question.intent, question.phrase, name))
    return 1 - len(misses) / len(asked), misses


async def enter(api: Api, story_id: str, session: str, interaction_id: str) -> None:
    interaction = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    given = {p["alias"]: "1" for p in interaction["parameters"] if p["required"]}
    body = {"storyId": story_id, "sessionId": session, "goto": interaction_id, "parameters": given}
    assert not (await api.ok("POST", "/query", body))["result"]["incomplete"]


RASA_PROJECTS = [
    pytest.param(SAMPLES / "rasa" / name, id=name)
    for name in ("fallback-button", "moodbot-zh", "helpdesk-assistant")
]


@pytest.mark.parametrize("project", RASA_PROJECTS)
async def test_a_rasa_project_answers_its_own_phrases(alice: Tenant, project: Path) -> None:
    api = alice.developer
    body = await import_zip(api, zipped(project))
    story_id = body["id"]
    report = body["report"]
    assert report["source"] == "rasa"
    asked = rasa_phrases(project)
    if report["language"] == "english":
        await semantic_ready(api, story_id)
    share, misses = await answered_share(api, story_id, report, asked)
    assert share >= GOAL, (share, misses)

    ids = {i["name"]: i["id"] for i in report["interactions"]}
    for intent, texts in rasa_rule_answers(project).items():
        if intent not in ids:
            continue
        interaction = await api.ok("GET", f"/stories/{story_id}/interactions/{ids[intent]}")
        said = [m for r in interaction["responses"] if r["type"] == "text" for m in r["messages"]]
        said += [r["title"] for r in interaction["responses"] if r["type"] == "buttonTemplate"]
        expected = [re.sub(r"\{(\w+)\}", r"{{\1}}", t) for t in texts]
        assert set(expected) <= set(said), (intent, expected, said)

    exported = await api.ok("GET", f"/stories/{story_id}/export")
    again = await api.post("/stories/import", exported)
    assert again.status == 200, again.body
    assert await api.ok("GET", f"/stories/{again.body['id']}/export") == exported
    print(f"{project.name}: {share:.3f} of {len(asked)}; unmapped {len(report['unmapped'])}")
    print(json.dumps(report["unmapped"], ensure_ascii=False)[:2000])


def dialogflow_intents(agent: Path) -> dict[str, dict[str, Any]]:
    return {
        file.stem: json.loads(file.read_text())
        for file in sorted((agent / "intents").glob("*.json"))
        if "_usersays_" not in file.name
    }


def dialogflow_phrases(agent: Path) -> list[Asked]:
    """Each intent's phrases; one needing input contexts is asked in the context of the
    intent that sets them (its follow-up parent first)."""
    language = json.loads((agent / "agent.json").read_text())["language"]
    intents = dialogflow_intents(agent)
    said: dict[str, list[str]] = {}
    for name in intents:
        file = agent / "intents" / f"{name}_usersays_{language}.json"
        if file.exists():
            said[name] = [
                "".join(p["text"] for p in u["data"]) for u in json.loads(file.read_text())
            ]
    by_id = {intent["id"]: name for name, intent in intents.items()}
    asked = []
    for name, intent in intents.items():
        context = None
        needed = set(intent.get("contexts", []))
        if needed:
            setters = [by_id[intent["parentId"]]] if intent.get("parentId") in by_id else []
            setters += [
                other
                for other, o in intents.items()
                if needed
                <= {
                    c["name"]
                    for c in o["responses"][0].get("affectedContexts", [])
                    if c["lifespan"]
                }
            ]
            context = setters[0] if setters else None
        asked += [Asked(name, phrase, context) for phrase in said.get(name, [])]
    return asked


def dialogflow_texts(intent: dict[str, Any]) -> list[str]:
    """The intent's default-platform text responses, its `$p` (and `#context.p`, which
    names the same conversation's parameter) as Parley's `{{p}}`."""
    texts = []
    for message in intent["responses"][0]["messages"]:
        if message.get("type") == 0 and "platform" not in message:
            speech = message["speech"]
            texts += [speech] if isinstance(speech, str) else speech
    return [re.sub(r"(?:\$|#[\w-]+\.)([\w-]+)", r"{{\1}}", t) for t in texts]


DIALOGFLOW_AGENTS = [
    pytest.param(
        SAMPLES / "dialogflow" / "temperature-converter" / "dialogflow-agent",
        id="temperature-converter",
    ),
    pytest.param(SAMPLES / "dialogflow" / "bike-shop" / "dialogflow-agent", id="bike-shop"),
    pytest.param(SAMPLES / "dialogflow" / "place-finder" / "place_finder", id="place-finder"),
]


@pytest.mark.parametrize("agent", DIALOGFLOW_AGENTS)
async def test_a_dialogflow_agent_answers_its_own_phrases(alice: Tenant, agent: Path) -> None:
    api = alice.developer
    body = await import_zip(api, zipped(agent))
    story_id = body["id"]
    report = body["report"]
    assert report["source"] == "dialogflow" and report["language"] == "english"
    await semantic_ready(api, story_id)
    asked = dialogflow_phrases(agent)
    share, misses = await answered_share(api, story_id, report, asked)
    assert share >= GOAL, (share, misses)

    stored = {}
    for interaction in report["interactions"]:
        path = f"/stories/{story_id}/interactions/{interaction['id']}"
        stored[interaction["name"]] = await api.ok("GET", path)
    for name, intent in dialogflow_intents(agent).items():
        said = [m for r in stored[name]["responses"] if r["type"] == "text" for m in r["messages"]]
        assert set(dialogflow_texts(intent)) <= set(said), (name, said)

    exported = await api.ok("GET", f"/stories/{story_id}/export")
    again = await api.post("/stories/import", exported)
    assert again.status == 200, again.body
    assert await api.ok("GET", f"/stories/{again.body['id']}/export") == exported
    print(f"{agent.parent.name}: {share:.3f} of {len(asked)}; unmapped {len(report['unmapped'])}")
    print(json.dumps(report["unmapped"], ensure_ascii=False)[:3000])


async def test_a_dialogflow_zip_as_dialogflow_writes_it_imports_as_its_folder(
    alice: Tenant,
) -> None:
    """The export ZIP (with its `__MACOSX/` entries) gives the story its folder gives."""
    api = alice.developer
    sample = SAMPLES / "dialogflow" / "temperature-converter"
    from_zip = await import_zip(api, (sample / "dialogflow-agent.zip").read_bytes())
    from_folder = await import_zip(api, zipped(sample / "dialogflow-agent"))
    assert from_zip["report"]["unmapped"] == from_folder["report"]["unmapped"]
    first = await api.ok("GET", f"/stories/{from_zip['id']}/export")
    assert first == await api.ok("GET", f"/stories/{from_folder['id']}/export")
