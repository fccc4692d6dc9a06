"""What the Rasa importer's tests share: a small project of given files, the document
checked as the service reads it, and what the imported story answers."""

from typing import Any

from bot_api.domain.interactions import prepare
from bot_api.domain.responses import QuickReplies, Text
from bot_api.engine.conversation import respond
from bot_api.engine.replay import first_message
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import SessionState, Turn
from bot_api.transfer.report import Translated
from bot_api.transfer.schemas import checked_upload


def checked(translated: Translated) -> dict[str, Any]:
    """The document, once the service's own reader took it (every field of each
    interaction and entity, keys, the tree), every slot of a phrase a declared parameter,
    and the entities it brings exactly those its interactions use."""
    document = translated.document
    assert document["connections"] == []
    upload = checked_upload("rasa", translated)
    for interaction in upload.interactions.values():
        assert prepare(interaction).parameters == interaction.parameters, "a slot undeclared"
    used = {p.entity for i in upload.interactions.values() for p in i.parameters}
    assert {e.name for e in upload.entities} == {e for e in used if not e.startswith("sys.")}
    return document


def replies(document: dict[str, Any], *messages: str) -> list[tuple[str, str]]:
    """What the imported story answers to these messages in one conversation: each
    answering interaction's name and first text or quick replies' title (the engine's
    lexical stage)."""
    upload = checked_upload("rasa", Translated(document, ()))
    story = CompiledStory.compile(
        "rasa", upload.settings, upload.structure, upload.interactions.values(), upload.entities
    )
    state, answered = SessionState(), []
    for message in messages:
        state, outcome = respond(story, state, Turn(query=message), choose=first_message)
        texts = [
            item.message if isinstance(item, Text) else item.title
            for item in outcome.fulfillment
            if isinstance(item, Text | QuickReplies)
        ]
        assert outcome.interaction is not None
        answered.append((outcome.interaction.name, texts[0] if texts else ""))
    return answered


def by_name(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["key"]: i for i in document["interactions"]}


def kinds(translated: Translated) -> list[str]:
    return [u.element for u in translated.unmapped]


def project(
    nlu: str,
    domain: str = "",
    rules: str = "",
    stories: str = "",
    config: str = "language: en\n",
) -> dict[str, bytes]:
    files = {
        "domain.yml": f'version: "3.1"\n{domain}'.encode(),
        "config.yml": config.encode(),
        "data/nlu.yml": f'version: "3.1"\nnlu:\n{nlu}'.encode(),
    }
    if rules:
        files["data/rules.yml"] = f'version: "3.1"\nrules:\n{rules}'.encode()
    if stories:
        files["data/stories.yml"] = f'version: "3.1"\nstories:\n{stories}'.encode()
    return files


MOOD_NLU = """\
- intent: greet
  examples: |
    - hi
    - hello
- intent: mood_unhappy
  examples: |
    - I am sad
- intent: affirm
  examples: |
    - yes
- intent: deny
  examples: |
    - no
"""


MOOD_DOMAIN = """\
responses:
  utter_greet:
  - text: Hey! How are you?
  utter_cheer_up:
  - text: "Here is something to cheer you up:"
    image: https://example.com/cat.jpg
  utter_did_that_help:
  - text: Did that help you?
  utter_happy:
  - text: Great, carry on!
  - text: Wonderful!
  utter_ok:
  - text: OK.
  utter_goodbye:
  - text: Bye {name}
"""
