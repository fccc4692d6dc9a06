"""What an upload is: a document in JSON or YAML, or a ZIP of a story's git layout (the
Dialogflow and Rasa ZIPs have tests of their own)."""

import io
import json
import re
import zipfile

import pytest

from bot_api.transfer.archive import read_form
from bot_api.transfer.layout import as_yaml, to_layout
from bot_api.transfer.report import Translated, TranslationError
from bot_api.transfer.sources import FORM, JSON, YAML, ZIP, translated
from support.forms import folder_form

DOCUMENT = {
    "format": "parley.story",
    "version": 1,
    "name": "Hours",
    "description": "",
    "settings": {},
    "interactions": [
        {"key": "hours", "name": "Hours", "userSays": ["when are you open"]},
        {"key": "deja-vu", "name": "Déjà vu", "userSays": ["2020-01-01"]},
    ],
    "entities": [
        {"name": "day", "entries": [{"value": "monday", "synonyms": [{"value": "monday"}]}]}
    ],
    "connections": [],
}  # fmt: skip


def test_json_and_yaml_documents_read_as_they_were_written() -> None:
    assert translated(JSON, json.dumps(DOCUMENT).encode()) == ("parley", Translated(DOCUMENT, ()))
    source, result = translated(YAML, as_yaml(DOCUMENT).encode())
    assert (source, result.document) == ("parley", DOCUMENT)


def test_the_git_layout_in_a_zip_reads_as_the_document() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path, text in to_layout(DOCUMENT).items():
            z.writestr(f"bots/hours/{path}", text)
    source, result = translated(ZIP, buffer.getvalue())
    assert (source, result.document) == ("parley", DOCUMENT)


@pytest.mark.parametrize(
    ("media", "body", "message"),
    [
        (JSON, b"{", "malformed JSON"),
        (JSON, b"[NaN]", "NaN"),
        (JSON, b"[" * 100_000, "nested"),
        (YAML, b"a: &x [1]\nb: *x\n", "aliases"),
        (YAML, b"a: [", "malformed YAML"),
        (YAML, b"a: !!binary aGk=", "JSON has no form"),
        (YAML, b"a: !!set {b}", "JSON has no form"),
        (YAML, b"\xff\xfe", "UTF-8"),
        (ZIP, b"PK", "not a ZIP"),
    ],
)
def test_an_unreadable_upload_says_why(media: str, body: bytes, message: str) -> None:
    with pytest.raises(TranslationError, match=message):
        translated(media, body)


def test_a_date_written_plainly_stays_text() -> None:
    _, result = translated(YAML, b"userSays: [2020-01-01]\n")
    assert result.document == {"userSays": ["2020-01-01"]}


def test_a_zip_of_no_bot_says_what_it_looked_for() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("notes.txt", "hello")
    with pytest.raises(TranslationError, match=r"agent\.json.*domain\.yml.*story\.yaml"):
        translated(ZIP, buffer.getvalue())


def test_a_layout_missing_a_listed_file_names_it() -> None:
    files = to_layout(DOCUMENT)
    del files["interactions/hours.yaml"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    with pytest.raises(TranslationError, match=r"interactions/hours\.yaml is missing"):
        translated(ZIP, buffer.getvalue())


RASA_PROJECT = {
    "domain.yml": "version: '3.1'\nintents: [greet, bye]\n"
    "responses:\n  utter_bye:\n  - text: Bye!\n",
    "data/nlu.yml": "version: '3.1'\nnlu:\n- intent: greet\n  examples: |\n    - hello\n"
    "- intent: bye\n  examples: |\n    - bye\n",
    "data/rules.yml": "version: '3.1'\nrules:\n- rule: bye\n  steps:\n  - intent: bye\n"
    "  - action: utter_bye\n",
}
AGENT = {
    "agent.json": json.dumps({"language": "en", "displayName": "Bikes"}),
    "intents/Hi.json": json.dumps({"name": "Hi", "responses": [{"messages": []}]}),
}


async def as_form(files: dict[str, str], top: str = "") -> tuple[bytes, str]:
    return folder_form({top + path: text.encode() for path, text in files.items()})


async def test_a_folder_sent_as_a_form_reads_as_its_zip_does() -> None:
    body, content_type = await as_form(RASA_PROJECT)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        for path, text in RASA_PROJECT.items():
            z.writestr(path, text)

    source, bot = translated(FORM, body, content_type)
    assert (source, bot) == translated(ZIP, zipped.getvalue())
    assert [i["name"] for i in bot.document["interactions"]] == ["greet", "bye"]


async def test_a_bot_that_names_itself_nowhere_takes_the_name_sent() -> None:
    body, content_type = await as_form(RASA_PROJECT, "carbon-bot/")
    assert translated(FORM, body, content_type, "carbon-bot")[1].document["name"] == "carbon-bot"
    assert translated(FORM, body, content_type)[1].document["name"] == "Rasa project"
    body, content_type = await as_form(AGENT, "bikes/")
    source, bot = translated(FORM, body, content_type, "bike-shop")
    assert (source, bot.document["name"]) == ("dialogflow", "Bikes")
    assert translated(JSON, json.dumps(DOCUMENT).encode(), name="Other")[1].document == DOCUMENT


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"../agent.json": b"{}"}, "'../agent.json' points outside the archive"),
        ({"__MACOSX/._domain.yml": b""}, "the form holds no file"),
        ({}, "the form is not multipart/form-data with its boundary"),
    ],
)
def test_a_form_of_no_folder_says_why(files: dict[str, bytes], message: str) -> None:
    body, content_type = folder_form(files)
    with pytest.raises(TranslationError, match=re.escape(message)):
        translated(FORM, body, content_type)


def test_a_form_without_its_boundary_is_refused() -> None:
    body, _ = folder_form({"domain.yml": b""})
    with pytest.raises(TranslationError, match="not multipart/form-data with its boundary"):
        translated(FORM, body, "multipart/form-data")


def test_a_path_with_a_quote_comes_as_the_browser_escaped_it() -> None:
    body, content_type = folder_form({'intents/Say "hi".json': b"[]", "agent.json": b"{}"})
    assert set(read_form(content_type, body)) == {'intents/Say "hi".json', "agent.json"}
