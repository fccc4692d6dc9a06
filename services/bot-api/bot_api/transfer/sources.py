"""What an import reads: Parley's document (JSON or YAML, or its git layout in a ZIP),
a Dialogflow ES agent or a Rasa project (ZIPs), each as a Parley document."""

import json
from collections.abc import Mapping
from typing import Any

import yaml

from bot_api.transfer import dialogflow, rasa, shape
from bot_api.transfer.archive import ArchiveError, read_archive, read_form, without_top_folder
from bot_api.transfer.layout import STORY_FILE, from_layout
from bot_api.transfer.report import Translated, TranslationError
from shared.fair_work import checkpoint

JSON = "application/json"
YAML = "application/yaml"
ZIP = "application/zip"
FORM = "multipart/form-data"
"""A folder's files, each a part named by its path: what a browser sends of a folder."""
MEDIA_TYPES = (JSON, YAML, ZIP, FORM)
UNNAMED = {"dialogflow": dialogflow.DEFAULT_NAME, "rasa": rasa.DEFAULT_NAME}
"""The name an importer gives a bot that names itself nowhere (`rasa.py`, `dialogflow.py`)."""


def translated(
    media_type: str, data: bytes, content_type: str = "", name: str = ""
) -> tuple[str, Translated]:
    """The source ("parley", "dialogflow", "rasa") and its document; an agent or project
    that names itself nowhere is named `name` when given (its file's or folder's name).
    `content_type`: the whole header, whose boundary a form needs."""
    if media_type in (ZIP, FORM):
        try:
            files = read_archive(data) if media_type == ZIP else read_form(content_type, data)
        except ArchiveError as error:
            raise TranslationError(str(error)) from None
        source, bot = from_files(files)
        if name and bot.document["name"] == UNNAMED.get(source):
            bot = Translated({**bot.document, "name": name}, bot.unmapped)
        return source, bot
    text = _text(data, "the body")
    budget = shape.Budget()
    if media_type == JSON:
        document = parse_json(text, budget)
    else:
        document = parse_yaml(text, "the body", budget)
    return "parley", Translated(document, ())


def from_files(files: dict[str, bytes]) -> tuple[str, Translated]:
    """A ZIP's or a form's files, whatever bot they hold; each JSON and YAML file within
    the bounds of `shape` before an importer reads it."""
    names = {path.rsplit("/", 1)[-1] for path in files}
    if "agent.json" in names:
        shape.check_files(files)
        return "dialogflow", dialogflow.translate(files)
    if "domain.yml" in names or any(path.split("/")[0] == "domain" for path in files):
        shape.check_files(files)
        return "rasa", rasa.translate(files)
    if STORY_FILE in names:
        return "parley", Translated(read_layout(without_top_folder(files, STORY_FILE)), ())
    raise TranslationError(
        "the upload holds neither a Dialogflow ES agent (agent.json), a Rasa project "
        f"(domain.yml) nor a Parley story ({STORY_FILE})"
    )


def read_layout(files: Mapping[str, bytes]) -> dict[str, Any]:
    """A story kept in its git layout (transfer/layout.py), its files within one
    `shape.Budget`."""
    budget = shape.Budget()
    return from_layout(
        {
            path: parse_yaml(_text(data, path), path, budget)
            for path, data in files.items()
            if path.endswith((".yaml", ".yml"))
        }
    )


def parse_json(text: str, budget: shape.Budget) -> Any:
    try:
        return shape.parse_json(text, "the body", budget)
    except shape.ShapeRefused:
        raise
    except ValueError as error:
        raise TranslationError(f"malformed JSON: {error}") from None


class _DocumentLoader(yaml.CSafeLoader):
    """libyaml's safe reader, a date written plainly kept as the text it is (a phrase
    "2020-01-01" is no date object). Each value made is a step of the import
    (`checkpoint`): building a million of them takes 15 s."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        checkpoint()
        return super().construct_object(node, deep)


_DocumentLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}


def parse_yaml(text: str, place: str, budget: shape.Budget) -> Any:
    """Plain YAML of what JSON holds, within the bounds of `shape` (which refuses an
    alias), checked before libyaml builds it: a value JSON has no form for (`!!binary`,
    `!!set`) is refused. Read by libyaml: 0.6 s for the 1000 × 99 story, where PyYAML's
    own reader takes 4.5 s."""
    try:
        shape.check_yaml(text, place, budget)
        document = yaml.load(text, _DocumentLoader)
    except yaml.YAMLError as error:
        raise TranslationError(f"{place}: malformed YAML: {error}") from None
    try:
        json.dumps(document)
    except (TypeError, ValueError):
        raise TranslationError(f"{place}: holds a value JSON has no form for") from None
    return document


def _text(data: bytes, place: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TranslationError(f"{place} is not UTF-8 text") from None
