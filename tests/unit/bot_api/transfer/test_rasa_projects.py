"""The Rasa importer on the shared sample projects, and on projects missing or holding
unreadable files."""

import io
import re
import zipfile
from pathlib import Path

import pytest

from bot_api.transfer.archive import read_archive
from bot_api.transfer.rasa import translate
from bot_api.transfer.report import TranslationError
from support.rasa_projects import MOOD_DOMAIN, MOOD_NLU, by_name, checked, kinds, project

SAMPLES = Path(__file__).resolve().parents[4] / ".." / "shared" / "samples" / "rasa"


def sample(name: str) -> dict[str, bytes]:
    folder = SAMPLES / name
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


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
