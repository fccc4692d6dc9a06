"""What the Dialogflow translator's tests share: the document checked as the service
reads it."""

import json
from collections.abc import Mapping
from typing import Any

from bot_api.domain.entities import BUILTIN_ENTITIES
from bot_api.domain.interactions import prepare
from bot_api.transfer.report import Translated
from bot_api.transfer.schemas import checked_upload


def checked(translated: Translated) -> dict[str, Any]:
    """The document, once the service's own reader took it (every field of each
    interaction and entity, keys, the tree) and every slot of a phrase is a declared
    parameter of an entity the document or the service has."""
    upload = checked_upload("dialogflow", translated)
    entities = {e.name for e in upload.entities}
    for interaction in upload.interactions.values():
        assert prepare(interaction).parameters == interaction.parameters, "a slot undeclared"
        assert {p.entity for p in interaction.parameters} <= entities | BUILTIN_ENTITIES
    json.dumps(translated.document)
    return translated.document


def by_name(document: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["name"]: i for i in document["interactions"]}


def elements(translated: Translated) -> list[tuple[str, str]]:
    return [(u.place, u.element) for u in translated.unmapped]
