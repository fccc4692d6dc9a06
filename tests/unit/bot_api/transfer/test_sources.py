"""What an upload is: a document in JSON or YAML, or a ZIP of a story's git layout (the
Dialogflow and Rasa ZIPs have tests of their own)."""

import io
import json
import zipfile

import pytest

from bot_api.transfer.layout import as_yaml, to_layout
from bot_api.transfer.report import Translated, TranslationError
from bot_api.transfer.sources import JSON, YAML, ZIP, translated

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
