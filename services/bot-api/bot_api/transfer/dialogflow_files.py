"""Reading the files of a Dialogflow ES agent export (transfer/dialogflow.py): each one
JSON of the shape the export gives it, a definition's companions by language, and a
file of the wrong shape reported as no export."""

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bot_api.transfer.report import TranslationError
from shared.fair_work import checkpoint


@contextmanager
def reading(path: str, what: str) -> Iterator[None]:
    """A file of the wrong shape (a list where an object belongs, ...) is no export.
    Each file read is a step of the import (`checkpoint`)."""
    checkpoint()
    try:
        yield
    except TranslationError:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise TranslationError(f"{path} is no Dialogflow ES {what}: {error!r}") from None


def json_file(files: Mapping[str, bytes], path: str, shape: type) -> Any:
    """The file's JSON, of the given shape (an object or a list)."""
    if path not in files:
        raise TranslationError(f"{path} is missing: not a Dialogflow ES agent export")
    try:
        content = json.loads(files[path].decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TranslationError(f"{path} is not JSON: {error}") from None
    if not isinstance(content, shape):
        raise TranslationError(f"{path} holds no JSON {'object' if shape is dict else 'list'}")
    return content


def in_folder(files: Mapping[str, bytes], folder: str, part: str) -> list[str]:
    """The definition files of a folder (not their `_<part>_<lang>.json` companions)."""
    return sorted(
        path
        for path in files
        if path.startswith(f"{folder}/")
        and path.endswith(".json")
        and "/" not in path[len(folder) + 1 :]
        and not re.search(rf"_{part}_[^/_]+\.json$", path)
    )


def companion(files: Mapping[str, bytes], path: str, part: str, code: str) -> list[Any]:
    companion = f"{path.removesuffix('.json')}_{part}_{code}.json"
    return json_file(files, companion, list) if companion in files else []
