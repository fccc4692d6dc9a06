"""The Rasa importer: the shared sample projects and a small project per mapping rule,
each document checked against Parley's rules (fields, rule 2, structure, entities)."""

import io
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from bot_api.domain.interactions import prepare
from bot_api.domain.responses import QuickReplies, Text
from bot_api.engine.conversation import respond
from bot_api.engine.replay import first_message
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import SessionState, Turn
from bot_api.transfer.archive import read_archive
from bot_api.transfer.rasa import translate
from bot_api.transfer.report import Translated, TranslationError
from bot_api.transfer.schemas import checked_upload

SAMPLES = Path(__file__).resolve().parents[4] / ".." / "shared" / "samples" / "rasa"


def sample(name: str) -> dict[str, bytes]:
    folder = SAMPLES / name
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


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


# The shared samples


def test_fallback_button_every_intent_is_a_root_answered_as_its_rule_or_story_says() -> None:
    translated = translate(sample("fallback-button"))
    document = checked(translated)
    interactions = by_name(document)
    assert list(interactions) == [
        "greet", "goodbye", "affirm", "deny", "mood_great", "mood_unhappy",
        "bot_challenge", "new_order", "what_happened", "inform",
    ]  # fmt: skip
    assert all(i["root"] and i["name"] == i["key"] for i in interactions.values())
    # 88 examples, "good afternoon" in greet and in goodbye
    assert sum(len(i["userSays"]) for i in interactions.values()) == 87
    greet = interactions["greet"]
    assert (greet["type"], greet["triggers"]) == ("welcome", ["welcome"])
    assert greet["userSays"][:3] == ["hey", "hello", "hi"]
    assert greet["responses"] == [{"type": "text", "messages": ["Hey! How are you?"]}]
    assert interactions["mood_unhappy"]["responses"] == [
        {"type": "text", "messages": ["Here is something to cheer you up:"]},
        {"type": "image", "imageUrl": "https://i.imgur.com/nGF1K8f.jpg"},
        {"type": "text", "messages": ["Did that help you?"]},
    ]
    assert (
        greet["contextOut"]
        == greet["references"]
        == ["mood_great", "mood_unhappy", "what_happened"]
    )
    assert interactions["mood_unhappy"]["references"] == ["affirm", "deny"]
    assert interactions["deny"]["responses"] == [{"type": "text", "messages": ["Bye"]}]
    assert document["settings"] == {"language": "english"}
    assert document["entities"] == []
    assert sorted(kinds(translated)) == [
        "custom action 'action_custom_fallback'",
        "example 'good afternoon' of 'goodbye'",
        "fallback answer",
        "response",
    ]
    assert [i["type"] for i in document["interactions"]].count("fallback") == 0


def test_moodbot_zh_is_a_chinese_story_with_every_example() -> None:
    translated = translate(sample("moodbot-zh"))
    document = checked(translated)
    interactions = by_name(document)
    assert document["settings"]["language"] == "chinese"
    assert list(interactions) == [
        "greet", "goodbye", "affirm", "deny", "mood_great", "mood_unhappy", "bot_challenge",
    ]  # fmt: skip
    assert interactions["greet"]["type"] == "welcome"
    assert interactions["greet"]["userSays"][:2] == ["嘿", "你好"]
    # 67 examples, "再见" twice in goodbye and "我很伤心" in mood_unhappy, "晚安" in greet
    # and in goodbye (kept in greet, the first with it as often)
    assert sum(len(i["userSays"]) for i in interactions.values()) == 64
    assert interactions["bot_challenge"]["responses"] == [
        {"type": "text", "messages": ["I am a bot, powered by Rasa."]}
    ]
    assert interactions["mood_unhappy"]["contextOut"] == ["affirm", "deny"]
    assert kinds(translated) == ["example '晚安' of 'goodbye'"]


def test_helpdesk_forms_become_required_parameters_and_annotations_slots() -> None:
    translated = translate(sample("helpdesk-assistant"))
    document = checked(translated)
    interactions = by_name(document)
    assert len(interactions) == 18  # 14 intents with examples, 3 without, the fallback
    assert interactions["open_incident"]["userSays"][12:14] == [
        "open an {{priority:priority}} issue",
        "I want to open an incident, but it's {{priority:priority}} priority",
    ]
    form_parameters = [
        {"alias": "email", "entity": "sys.email", "prompts": ["What is your email address?"]},
        {
            "alias": "priority",
            "entity": "priority",
            # its buttons, shown as the replies of the prompt
            "prompts": ["What is the priority of this issue?"],
            "promptReplies": ["low", "medium", "high"],
        },
        {
            "alias": "problem_description",
            "entity": "sys.any",
            "prompts": ["What is the problem description for the issue?"],
        },
        {
            "alias": "incident_title",
            "entity": "sys.any",
            "prompts": ["What should we use for the title of this incident?"],
        },
    ]
    assert interactions["password_reset"]["parameters"] == form_parameters
    assert interactions["problem_email"]["parameters"] == form_parameters
    assert sorted(map(str, interactions["open_incident"]["parameters"])) == sorted(
        map(str, form_parameters)
    )
    assert interactions["incident_status"]["parameters"] == form_parameters[:1]
    assert interactions["inform"]["parameters"] == [
        {"alias": "priority", "entity": "priority", "prompts": []}
    ]
    assert document["entities"] == [
        {
            "name": "priority",
            "entries": [
                {
                    "value": "high",
                    "synonyms": [
                        {"value": v}
                        for v in (
                            "high",
                            "urgent",
                            "really important",
                            "escalated",
                            "escalate",
                            "critical",
                        )
                    ],
                },
                {"value": "low", "synonyms": [{"value": "low"}]},
                {"value": "medium", "synonyms": [{"value": "medium"}]},
                {"value": "super high", "synonyms": [{"value": "super high"}]},
            ],
        }
    ]
    assert interactions["greet"]["responses"][0] == {
        "type": "text",
        "messages": ["Hallo! I'm your IT Helpdesk Assistant."],
    }
    assert len(interactions["greet"]["responses"]) == 2  # utter_greet, utter_help
    fallback = interactions["nlu_fallback"]
    assert fallback["type"] == "fallback"
    assert fallback["responses"] == [
        {"type": "text", "messages": ["I didn't quite understand that. Could you rephrase?"]}
    ]
    # its question is asked in code (action_handoff_options): nothing follows it
    assert interactions["human_handoff"]["contextOut"] == []
    assert interactions["help"]["responses"][0]["messages"][0].startswith("I can help you")
    unmapped = kinds(translated)
    assert unmapped.count("custom action 'action_open_incident'") == 3
    assert "slot 'confirm' (from_intent)" in unmapped
    assert "custom action 'action_open_incident' ending form 'open_incident_form'" in unmapped
    assert "intent help while a form asks" in unmapped
    assert "intent 'restart' without examples" in unmapped
    assert "entities of intent 'trigger_handoff'" in unmapped
    assert "answer to 'affirm'" in unmapped
    assert "example 'yes thanks' of 'affirm'" in unmapped
    assert "buttons of a prompt" not in unmapped  # kept, as replies
    assert len(unmapped) == 44


def test_a_zip_with_a_folder_around_the_project_reads_as_the_folder() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, content in sample("moodbot-zh").items():
            archive.writestr(f"moodbot/{path}", content)
    assert translate(read_archive(buffer.getvalue())) == translate(sample("moodbot-zh"))


# One rule at a time

AMOUNT_SLOT = """\
  amount:
    type: float
    mappings: [{type: from_entity, entity: amount}]
"""


def test_an_answer_after_a_question_that_differs_is_a_follow_up_without_phrases() -> None:
    stories = """\
- story: sad
  steps:
  - intent: greet
  - action: utter_greet
  - intent: mood_unhappy
  - action: utter_cheer_up
  - action: utter_did_that_help
  - intent: affirm
  - action: utter_happy
  - intent: deny
  - action: utter_goodbye
- story: sad, otherwise
  steps:
  - intent: mood_unhappy
  - action: utter_cheer_up
  - action: utter_did_that_help
  - intent: affirm
  - action: utter_greet
  - intent: ask_weather
  - action: utter_ok
- story: affirm alone
  steps:
  - intent: affirm
  - action: utter_ok
- story: affirm alone again
  steps:
  - intent: affirm
  - action: utter_ok
"""
    translated = translate(project(MOOD_NLU, MOOD_DOMAIN, stories=stories))
    document = checked(translated)
    interactions = by_name(document)
    assert interactions["affirm"]["responses"] == [{"type": "text", "messages": ["OK."]}]
    follow_up = interactions["mood_unhappy.affirm"]
    assert (follow_up["name"], follow_up["action"], follow_up["root"]) == (
        "affirm",
        interactions["affirm"]["action"],
        False,
    )
    assert follow_up["userSays"] == []
    assert follow_up["responses"] == [
        {"type": "text", "messages": ["Great, carry on!", "Wonderful!"]}
    ]
    assert interactions["mood_unhappy"]["contextOut"] == ["mood_unhappy.affirm"]
    assert (
        interactions["greet"]["contextOut"]
        == interactions["greet"]["references"]
        == ["mood_unhappy"]
    )
    assert follow_up["contextOut"] == []  # "Great, carry on!" asks nothing
    assert interactions["deny"]["responses"] == [{"type": "text", "messages": ["Bye {{name}}"]}]
    assert [i["key"] for i in document["interactions"]] == [
        "greet", "mood_unhappy", "mood_unhappy.affirm", "affirm", "deny",
    ]  # fmt: skip
    assert [(u.place, u.element) for u in translated.unmapped] == [
        ("data/stories.yml: stories[1].steps[3]", "answer to 'affirm' after utter_did_that_help"),
        ("data/stories.yml: stories[1].steps[5]", "intent 'ask_weather'"),
    ]
    assert replies(document, "yes") == [("affirm", "OK.")]
    assert replies(document, "I am sad", "yes") == [
        ("mood_unhappy", "Here is something to cheer you up:"),
        ("affirm", "Great, carry on!"),
    ]


def test_an_intent_in_many_stories_is_one_interaction_and_question_chains_stay_short() -> None:
    """carbon-bot's shape: `thank` after every kind of turn, and "yes" answered one way
    after each of two chained questions and another way alone."""
    nlu = (
        MOOD_NLU
        + "- intent: thank\n  examples: |\n    - thanks\n    - thank you\n"
        + "- intent: offer\n  examples: |\n    - offsets\n"
    )
    domain = """\
responses:
  utter_offer:
  - text: Would you like to buy offsets?
  utter_estimate:
  - text: I can estimate your flight, sound good?
  utter_which:
  - text: Which flight?
  utter_ok:
  - text: OK.
  utter_welcome:
  - text: You are welcome.
  utter_bye:
  - text: Bye.
"""
    turns = [
        ("offer", "utter_offer"),
        ("affirm", "utter_estimate"),
        ("affirm", "utter_which"),
        ("thank", "utter_welcome"),
        ("affirm", "utter_ok"),
        ("thank", "utter_welcome"),
        ("deny", "utter_bye"),
    ]
    steps = "".join(f"  - intent: {i}\n  - action: {a}\n" for i, a in turns)
    stories = "".join(f"- story: s{n}\n  steps:\n{steps}" for n in range(12))
    stories += "- story: alone\n  steps:\n  - intent: affirm\n  - action: utter_ok\n" * 20
    translated = translate(project(nlu, domain, stories=stories))
    document = checked(translated)
    interactions = by_name(document)
    assert list(interactions) == [
        "greet", "mood_unhappy", "affirm", "deny", "thank", "offer",
        "offer.affirm", "offer.affirm.affirm",
    ]  # fmt: skip
    phrases = [p for i in document["interactions"] for p in i["userSays"]]
    assert len(phrases) == len(set(phrases)) == 8  # each example once
    assert interactions["offer.affirm"]["contextOut"] == ["offer.affirm.affirm"]
    assert replies(document, "offsets", "yes", "yes", "thanks") == [
        ("offer", "Would you like to buy offsets?"),
        ("affirm", "I can estimate your flight, sound good?"),
        ("affirm", "Which flight?"),
        ("thank", "You are welcome."),
    ]
    assert replies(document, "thank you", "yes") == [
        ("thank", "You are welcome."),
        ("affirm", "OK."),
    ]


def test_a_rule_answer_wins_over_the_stories() -> None:
    rules = "- rule: ok\n  steps:\n  - intent: affirm\n  - action: utter_ok\n"
    stories = "".join(
        f"- story: s{n}\n  steps:\n  - intent: affirm\n  - action: utter_happy\n" for n in range(3)
    )
    interactions = by_name(checked(translate(project(MOOD_NLU, MOOD_DOMAIN, rules, stories))))
    assert interactions["affirm"]["responses"] == [{"type": "text", "messages": ["OK."]}]


def test_or_steps_answer_each_intent_and_checkpoints_break_the_chain() -> None:
    stories = """\
- story: either
  steps:
  - or:
    - intent: affirm
    - intent: deny
  - action: utter_ok
  - checkpoint: later
  - intent: greet
  - action: utter_greet
"""
    translated = translate(project(MOOD_NLU, MOOD_DOMAIN, stories=stories))
    interactions = by_name(checked(translated))
    assert interactions["affirm"]["responses"] == interactions["deny"]["responses"]
    assert interactions["affirm"]["contextOut"] == interactions["deny"]["contextOut"] == []
    assert (
        kinds(translated) == ["checkpoint 'later'", "answer to 'mood_unhappy'"] + ["response"] * 4
    )


def test_slot_and_entity_conditions_and_custom_actions_are_reported() -> None:
    stories = """\
- story: conditions
  steps:
  - intent: greet
    entities:
    - name: Ann
  - slot_was_set:
    - name: Ann
  - action: action_hello
"""
    rules = """\
- rule: only in a form
  condition:
  - active_loop: some_form
  steps:
  - intent: deny
  - action: utter_ok
"""
    translated = translate(project(MOOD_NLU, MOOD_DOMAIN, rules, stories))
    checked(translated)
    assert [(u.place, u.element) for u in translated.unmapped][:4] == [
        ("data/rules.yml: rules[0]", "conditional rule 'only in a form'"),
        ("data/stories.yml: stories[0].steps[0]", "entities of intent 'greet'"),
        ("data/stories.yml: stories[0].steps[1]", "slot_was_set"),
        ("data/stories.yml: stories[0].steps[2]", "custom action 'action_hello'"),
    ]


def test_annotations_become_slots_and_synonyms_lookups_entities() -> None:
    nlu = """\
- intent: order
  examples: |
    - a [large](size) pizza
    - a [big](size:large) one
    - from [Berlin]{"entity": "city", "role": "from"} to [Paris]{"entity": "city", "role": "to"}
    - [two]{"entity": "size", "value": "small", "group": "1"} please
- synonym: large
  examples: |
    - huge
- synonym: nowhere
  examples: |
    - void
- lookup: city
  examples: |
    - Rome
- regex: zip
  examples: |
    - \\d{5}
"""
    translated = translate(project(nlu))
    document = checked(translated)
    order = by_name(document)["order"]
    assert order["userSays"] == [
        "a {{size:size}} pizza",
        "a {{size:size}} one",
        "from {{city:from}} to {{city:to}}",
        "{{size:size}} please",
    ]
    assert order["parameters"] == [
        {"alias": "size", "entity": "size", "prompts": []},
        {"alias": "from", "entity": "city", "prompts": []},
        {"alias": "to", "entity": "city", "prompts": []},
    ]
    entities = {e["name"]: e["entries"] for e in document["entities"]}
    assert entities["size"] == [
        {"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}, {"value": "huge"}]},
        {"value": "small", "synonyms": [{"value": "small"}, {"value": "two"}]},
    ]
    assert [e["value"] for e in entities["city"]] == ["Berlin", "Paris", "Rome"]
    assert kinds(translated) == [
        "group of 'size'",
        "regex 'zip'",
        "synonym 'nowhere'",
        "answer to 'order'",
    ]


def test_duckling_entities_are_built_in_ones() -> None:
    config = (
        "language: de\npipeline:\n- name: DucklingEntityExtractor\n  dimensions: [number, email]\n"
    )
    nlu = "- intent: count\n  examples: |\n    - [3](number) Kinder\n"
    document = checked(translate(project(nlu, config=config)))
    assert document["interactions"][0]["userSays"] == ["{{sys.number:number}} Kinder"]
    assert document["entities"] == []
    assert document["settings"]["language"] == "german"


def test_buttons_become_a_button_template_or_quick_replies() -> None:
    domain = """\
responses:
  utter_ask:
  - text: Did that help?
    buttons:
    - {title: "Yes", payload: /affirm}
    - {title: "No, not at all really", payload: /deny}
    - {title: Low, payload: '/inform{"priority": "low"}'}
  utter_pick:
  - text: Pick one
    buttons: [{title: a, payload: a}, {title: b, payload: b}, {title: c}, {title: d}]
  utter_only:
  - text: only in slack
    channel: slack
  - text: only for friends
    condition: [{type: slot, name: friend, value: true}]
  - custom: {blocks: []}
"""
    rules = "".join(
        f"- rule: r{n}\n  steps:\n  - intent: {intent}\n  - action: {action}\n"
        for n, (intent, action) in enumerate(
            [("greet", "utter_ask"), ("affirm", "utter_pick"), ("deny", "utter_only")]
        )
    )
    translated = translate(project(MOOD_NLU, domain, rules))
    interactions = by_name(checked(translated))
    assert interactions["greet"]["responses"] == [
        {
            "type": "buttonTemplate",
            "title": "Did that help?",
            "buttons": [
                {"title": "Yes", "goto": "affirm"},
                {"title": "No, not at all reall", "goto": "deny"},
                {"title": "Low", "postback": "Low"},
            ],
        }
    ]
    assert interactions["affirm"]["responses"] == [
        {"type": "quickReply", "title": "Pick one", "replies": ["a", "b", "c", "d"]}
    ]
    assert interactions["deny"]["responses"] == []
    assert kinds(translated) == [
        "button titles",
        "answer to 'mood_unhappy'",
        "channel variant",
        "condition variant",
        "custom",
    ]


def test_retrieval_intents_are_one_interaction_each() -> None:
    nlu = """\
- intent: faq/ask_name
  examples: |
    - what is your name
- intent: faq/ask_age
  examples: |
    - how old are you
"""
    domain = """\
intents: [faq]
responses:
  utter_faq/ask_name:
  - text: I am Parley.
  utter_faq/ask_age:
  - text: Young.
"""
    rules = "- rule: faq\n  steps:\n  - intent: faq\n  - action: utter_faq\n"
    translated = translate(project(nlu, domain, rules))
    interactions = by_name(checked(translated))
    assert {k: (i["name"], i["responses"][0]["messages"]) for k, i in interactions.items()} == {
        "faq-ask_name": ("faq/ask_name", ["I am Parley."]),
        "faq-ask_age": ("faq/ask_age", ["Young."]),
    }
    assert translated.unmapped == ()


def test_a_conversation_start_rule_makes_the_welcome_and_default_fallback_the_fallback() -> None:
    rules = """\
- rule: start
  conversation_start: true
  steps:
  - intent: mood_unhappy
  - action: utter_cheer_up
- rule: fallback
  steps:
  - intent: nlu_fallback
  - action: action_default_fallback
"""
    domain = MOOD_DOMAIN + "  utter_default:\n  - text: Sorry?\n"
    translated = translate(project(MOOD_NLU, domain, rules))
    interactions = by_name(checked(translated))
    assert interactions["mood_unhappy"]["type"] == "welcome"
    assert interactions["greet"]["type"] == "standard"
    assert interactions["nlu_fallback"]["type"] == "fallback"
    assert interactions["nlu_fallback"]["responses"] == [{"type": "text", "messages": ["Sorry?"]}]
    assert not any("action_default_fallback" in element for element in kinds(translated))


def test_rasa_2_forms_in_a_domain_folder() -> None:
    files = project(
        "- intent: book\n  examples: |\n    - book a table\n"
        "- intent: inform\n  examples: |\n    - for [4](guests)\n",
        rules="- rule: b\n  steps:\n  - intent: book\n  - action: booking_form\n"
        "  - active_loop: booking_form\n",
    )
    del files["domain.yml"]
    files["domain/forms.yml"] = (
        b"forms:\n  booking_form:\n"
        b"    guests:\n    - type: from_entity\n      entity: guests\n"
        b"    note:\n    - type: from_intent\n      intent: affirm\n"
    )
    files["domain/responses.yml"] = (
        b"responses:\n  utter_ask_booking_form_guests:\n  - text: How many?\n"
    )
    translated = translate(files)
    book = by_name(checked(translated))["book"]
    assert book["parameters"] == [{"alias": "guests", "entity": "guests", "prompts": ["How many?"]}]
    assert "slot 'note' (from_intent)" in kinds(translated)


def test_yes_and_no_stay_text_as_in_yaml_1_2() -> None:
    domain = "responses:\n  utter_yes:\n  - text: yes\n  - text: No\n"
    rules = "- rule: y\n  steps:\n  - intent: affirm\n  - action: utter_yes\n"
    affirm = by_name(checked(translate(project(MOOD_NLU, domain, rules))))["affirm"]
    assert affirm["responses"] == [{"type": "text", "messages": ["yes", "No"]}]


def test_more_than_99_examples_keep_the_first_99() -> None:
    examples = "".join(f"    - phrase {n}\n" for n in range(120))
    translated = translate(project(f"- intent: many\n  examples: |\n{examples}"))
    many = checked(translated)["interactions"][0]
    assert many["userSays"][-1] == "phrase 98" and len(many["userSays"]) == 99
    assert "21 examples of 'many'" in kinds(translated)


def test_an_unknown_language_is_reported_and_english() -> None:
    translated = translate(project(MOOD_NLU, config="language: xx\n"))
    assert translated.document["settings"]["language"] == "english"
    assert "language 'xx'" in kinds(translated)


# Bad input


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"domain.yml": None}, "domain.yml: missing"),
        ({"domain.yml": b"responses: [\n"}, "domain.yml: not valid YAML"),
        ({"config.yml": b"- a list\n"}, "config.yml: a Rasa file holds a mapping"),
        ({"data/nlu.yml": b"\xff\xfe"}, "data/nlu.yml: not UTF-8"),
        ({"data/nlu.yml": b"rules: []\n"}, "data/: no NLU training data"),
        ({"data/stories.yml": b"stories: {\n"}, "data/stories.yml: not valid YAML"),
        ({"config.yml": b"a: &x [1]\nb: *x\n"}, "aliases (*name) are not read"),
    ],
)
def test_a_project_missing_or_unreadable_files_is_refused_naming_the_file(
    change: dict[str, bytes | None], message: str
) -> None:
    files = project(MOOD_NLU, MOOD_DOMAIN)
    for path, content in change.items():
        if content is None:
            del files[path]
        else:
            files[path] = content
    with pytest.raises(TranslationError, match=re.escape(message)):
        translate(files)


def test_rasa_1_templates_are_responses_and_forms_listed_by_name_ask_nothing() -> None:
    domain = """\
forms:
- booking_form
templates:
  utter_ok:
  - text: OK.
"""
    rules = """\
- rule: ok
  steps:
  - intent: affirm
  - action: utter_ok
- rule: book
  steps:
  - intent: greet
  - action: booking_form
  - active_loop: booking_form
"""
    translated = translate(project(MOOD_NLU, domain, rules))
    interactions = by_name(checked(translated))
    assert interactions["affirm"]["responses"] == [{"type": "text", "messages": ["OK."]}]
    assert interactions["greet"]["parameters"] == []
    assert "form 'booking_form'" in kinds(translated)


def test_a_form_asks_in_the_order_of_its_required_slots() -> None:
    nlu = """\
- intent: transfer
  examples: |
    - send money to [Ann](PERSON)
    - transfer [10](amount) to [Bo](PERSON)
"""
    domain = (
        "slots:\n"
        + AMOUNT_SLOT
        + """\
  PERSON:
    type: text
    mappings: [{type: from_entity, entity: PERSON}]
  checked:
    type: bool
    mappings: [{type: custom, action: action_check}]
forms:
  transfer_form:
    required_slots: [amount, checked, PERSON]
responses:
  utter_ask_amount:
  - text: How much?
  utter_ask_PERSON:
  - text: To whom?
"""
    )
    rules = """\
- rule: t
  steps:
  - intent: transfer
  - action: transfer_form
  - active_loop: transfer_form
"""
    translated = translate(project(nlu, domain, rules))
    transfer = by_name(checked(translated))["transfer"]
    assert [(p["alias"], p["prompts"]) for p in transfer["parameters"]] == [
        ("amount", ["How much?"]),
        ("PERSON", ["To whom?"]),
    ]
    assert [u.reason for u in translated.unmapped if u.element == "slot 'checked' (custom)"] == [
        "Rasa fills it in code (a custom action or a validate_ action): not asked; a webhook "
        "on the interaction could fill it"
    ]


def test_a_form_s_end_says_what_its_submit_rule_says() -> None:
    nlu = "- intent: transfer\n  examples: |\n    - send [10](amount)\n"
    domain = (
        "slots:\n"
        + AMOUNT_SLOT
        + """\
forms:
  transfer_form:
    required_slots: [amount]
responses:
  utter_ask_amount:
  - text: How much?
  utter_done:
  - text: Sent {amount}.
"""
    )
    rules = """\
- rule: start
  steps:
  - intent: transfer
  - action: transfer_form
  - active_loop: transfer_form
- rule: submit
  condition:
  - active_loop: transfer_form
  steps:
  - action: transfer_form
  - active_loop: null
  - slot_was_set:
    - requested_slot: null
  - action: action_transfer
  - action: utter_done
"""
    translated = translate(project(nlu, domain, rules))
    document = checked(translated)
    assert by_name(document)["transfer"]["responses"] == [
        {"type": "text", "messages": ["Sent {{amount}}."]}
    ]
    assert kinds(translated) == ["custom action 'action_transfer' ending form 'transfer_form'"]
    assert replies(document, "send", "10") == [("transfer", "How much?"), ("transfer", "Sent 10.")]


def test_a_quick_reply_click_during_a_prompt_reaches_the_intent_of_its_payload() -> None:
    """financial-demo's shape: a help message with more buttons than a template holds
    (quick replies send their titles), one of them "Talk to a human", clicked while a
    form asks for free text."""
    nlu = (
        MOOD_NLU
        + "- intent: pay\n  examples: |\n    - pay someone\n"
        + "- intent: human\n  examples: |\n    - I want a person\n"
    )
    domain = """\
slots:
  payee:
    type: text
    mappings: [{type: from_text}]
forms:
  pay_form:
    required_slots: [payee]
responses:
  utter_ask_payee:
  - text: Who?
  utter_help:
  - text: I can help with
    buttons:
    - {title: Pay, payload: /pay}
    - {title: Talk to a human, payload: /human}
    - {title: Say hi, payload: /greet}
    - {title: "Yes", payload: /affirm}
  utter_human:
  - text: Hold on.
"""
    rules = """\
- rule: help
  steps:
  - intent: greet
  - action: utter_help
- rule: human
  steps:
  - intent: human
  - action: utter_human
- rule: pay
  steps:
  - intent: pay
  - action: pay_form
  - active_loop: pay_form
"""
    document = checked(translate(project(nlu, domain, rules)))
    interactions = by_name(document)
    assert interactions["greet"]["responses"][0]["replies"] == [
        "Pay", "Talk to a human", "Say hi", "Yes",
    ]  # fmt: skip
    assert interactions["human"]["userSays"] == ["I want a person", "Talk to a human"]
    assert interactions["affirm"]["userSays"] == ["yes"]  # "Yes" is a phrase already
    assert replies(document, "hi", "Pay", "Talk to a human") == [
        ("greet", "I can help with"),
        ("pay", "Who?"),
        ("human", "Hold on."),
    ]


def pay_form(
    ask_account: str, nlu: str = "", responses: str = "", rules: str = ""
) -> dict[str, bytes]:
    """A project whose `pay` intent starts a form asking for `account`
    (`utter_ask_account`'s variants given), then says `utter_paid`."""
    domain = f"""\
slots:
  account:
    type: text
    mappings: [{{type: from_entity, entity: account}}]
forms:
  pay_form:
    required_slots: [account]
responses:
  utter_ask_account:
{ask_account}  utter_paid:
  - text: Paid from {{account}}.
{responses}"""
    pay = """\
- rule: pay
  steps:
  - intent: pay
  - action: pay_form
  - active_loop: pay_form
  - active_loop: null
  - action: utter_paid
"""
    pay_nlu = "- intent: pay\n  examples: |\n    - pay my [credit](account) card\n"
    return project(pay_nlu + nlu, domain, pay + rules)


def test_a_prompt_s_buttons_are_its_replies_and_their_titles_fill_the_slot() -> None:
    ask = """\
  - text: Which account?
    buttons:
    - {title: Credit card, payload: '/inform{"account": "credit"}'}
    - {title: Savings, payload: '/inform{"account": "savings"}'}
"""
    document = checked(translate(pay_form(ask)))
    assert by_name(document)["pay"]["parameters"] == [
        {
            "alias": "account",
            "entity": "account",
            "prompts": ["Which account?"],
            "promptReplies": ["Credit card", "Savings"],
        }
    ]
    assert document["entities"] == [
        {
            "name": "account",
            "entries": [
                {"value": "credit", "synonyms": [{"value": "credit"}, {"value": "Credit card"}]},
                {"value": "savings", "synonyms": [{"value": "savings"}, {"value": "Savings"}]},
            ],
        }
    ]
    assert replies(document, "pay my bills", "Savings") == [
        ("pay", "Which account?"),
        ("pay", "Paid from savings."),
    ]


def test_a_prompt_s_long_button_titles_are_cut_to_replies_that_still_fill_the_slot() -> None:
    ask = """\
  - text: Which account?
    buttons:
    - {title: The credit card ending in 4242, payload: '/inform{"account": "credit"}'}
  - text: Pay from which account?
    buttons:
    - {title: The credit card ending in 4242, payload: '/inform{"account": "credit"}'}
    - {title: '  ', payload: '/inform{"account": "savings"}'}
"""
    translated = translate(pay_form(ask))
    document = checked(translated)
    parameter = by_name(document)["pay"]["parameters"][0]
    assert parameter["prompts"] == ["Which account?", "Pay from which account?"]
    assert parameter["promptReplies"] == ["The credit card endi"]  # once, blank left out
    assert "buttons of a prompt" in kinds(translated)
    assert replies(document, "pay my bills", "The credit card endi") == [
        ("pay", "Which account?"),
        ("pay", "Paid from credit."),
    ]


def test_a_prompt_s_button_sending_another_intent_is_a_reply_whose_click_reaches_it() -> None:
    ask = """\
  - text: Which account?
    buttons:
    - {title: Credit card, payload: '/inform{"account": "credit"}'}
    - {title: Talk to a human, payload: /human}
"""
    document = checked(
        translate(
            pay_form(
                ask,
                nlu="- intent: human\n  examples: |\n    - I want a person\n",
                responses="  utter_human:\n  - text: Hold on.\n",
                rules="- rule: human\n  steps:\n  - intent: human\n  - action: utter_human\n",
            )
        )
    )
    interactions = by_name(document)
    assert interactions["pay"]["parameters"][0]["promptReplies"] == [
        "Credit card",
        "Talk to a human",
    ]
    assert interactions["human"]["userSays"] == ["I want a person", "Talk to a human"]
    assert replies(document, "pay my bills", "Talk to a human") == [
        ("pay", "Which account?"),
        ("human", "Hold on."),
    ]


def test_a_retrieval_intent_after_a_question_adds_no_reference_per_sub_intent() -> None:
    nlu = MOOD_NLU + (
        "- intent: faq/ask_name\n  examples: |\n    - what is your name\n"
        "- intent: faq/ask_age\n  examples: |\n    - how old are you\n"
    )
    domain = MOOD_DOMAIN + (
        "  utter_faq/ask_name:\n  - text: Parley.\n  utter_faq/ask_age:\n  - text: Young.\n"
    )
    stories = """\
- story: asked
  steps:
  - intent: greet
  - action: utter_greet
  - intent: faq
  - action: utter_faq
  - intent: greet
  - action: utter_greet
  - intent: mood_unhappy
  - action: utter_cheer_up
"""
    interactions = by_name(checked(translate(project(nlu, domain, stories=stories))))
    assert interactions["greet"]["contextOut"] == ["mood_unhappy"]
    assert interactions["faq-ask_name"]["responses"] == [{"type": "text", "messages": ["Parley."]}]
