"""The story document (docs/import-export.md) as a request body and an answer.

A document is read in two steps, so each interaction is checked by the very schema
`POST /stories/:id/interactions` uses: this schema checks the document's own fields
(format, keys, contexts), then `bot_api.transfer.document.read_document` resolves the
keys, and each interaction's fields are loaded by `InteractionWriteSchema`.
"""

from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from datetime import UTC, datetime
from typing import Any

from marshmallow import (
    INCLUDE,
    Schema,
    ValidationError,
    fields,
    pre_load,
    validate,
    validates_schema,
)

from bot_api.common.schemas import text
from bot_api.domain.conversation_tests import unspoken
from bot_api.domain.interactions import (
    FALLBACK,
    STANDARD,
    WELCOME,
    Interaction,
    default_interactions,
)
from bot_api.domain.settings import Settings
from bot_api.entities.schemas import EntityWriteSchema, entity_body
from bot_api.interactions.schemas import InteractionSchema, InteractionWriteSchema
from bot_api.knowledge.records import StoredDocument
from bot_api.knowledge.schemas import MAX_FAQ_PAIRS, FaqPairWriteSchema
from bot_api.knowledge.service import faq_document
from bot_api.stories.schemas import SettingsSchema
from bot_api.story_tests.repository import written_test
from bot_api.story_tests.schemas import DocumentTestsField
from bot_api.transfer import sources
from bot_api.transfer.document import (
    FORMAT,
    KEY_PATTERN,
    VERSION,
    Problem,
    StoryContent,
    read_document,
    to_document,
)
from bot_api.transfer.report import Translated, TranslationError, Unmapped
from bot_api.transfer.service import Exported, StoryUpload
from shared.errors import BadRequest, ValidationFailed
from shared.fair_work import checkpoint
from shared.ids import new_object_id
from shared.json_body import check_text
from shared.schema_fields import FullMatch, StrictBoolean

MAX_DOCUMENT_INTERACTIONS = 5_000
"""The most interactions a story may have at the highest quota an account can be given."""
MAX_REPORTED_PROBLEMS = 500
"""Problems a refused import lists (the rest are counted): every one of a real bot's,
few enough to read."""


def key(**kwargs: Any) -> fields.String:
    return fields.String(
        validate=FullMatch(
            KEY_PATTERN.pattern, error="1 to 128 ASCII letters, digits, '_', '.' or '-'."
        ),
        **kwargs,
    )


def keys() -> fields.List[str]:
    return fields.List(key(), validate=validate.Length(max=50))


class DocumentInteractionSchema(Schema):
    """An interaction's place in the document; its own fields pass on, to be checked by
    `InteractionWriteSchema` once keys are resolved."""

    class Meta:
        unknown = INCLUDE

    key = key(required=True)
    type = fields.String(validate=validate.OneOf([STANDARD, WELCOME, FALLBACK]))
    root = StrictBoolean()
    contextOut = keys()
    references = keys()
    connection = text(128, min_length=1, metadata={"description": "A webhook connection's name"})
    handoff = text(
        128,
        min_length=1,
        metadata={"description": "The name of the webhook connection a handoff block names"},
    )

    @pre_load
    def each_a_step(self, data: Any, **_: Any) -> Any:
        """Each interaction read is a step of the import (`checkpoint`): a document of a
        million of them stops soon once its import is cancelled."""
        checkpoint()
        return data


MAX_DOCUMENTS = 200
"""The documents a story document may sum up: the deployment's default quota."""


class DocumentKnowledgeSchema(Schema):
    """A story's document in its story document (docs/knowledge.md): an FAQ document
    whole, a file's or a text's summary only (its text is uploaded on its own)."""

    title = text(200, min_length=1, required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["faq", "text"]))
    faq = fields.List(
        fields.Nested(FaqPairWriteSchema),
        validate=validate.Length(max=MAX_FAQ_PAIRS),
        load_default=list,
    )
    mediaType = text(200, attribute="media_type")
    url = fields.String(validate=validate.Length(max=2000))
    sha256 = text(64)
    passages = fields.Integer(strict=True, validate=validate.Range(min=0))
    characters = fields.Integer(strict=True, validate=validate.Range(min=0))

    @validates_schema
    def faq_has_pairs(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data["kind"] == "faq" and not data.get("faq"):
            raise ValidationError("an FAQ document needs its pairs", "faq")


class StoryDocumentSchema(Schema):
    format = fields.String(required=True, validate=validate.Equal(FORMAT))
    version = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Equal(VERSION, error=f"This service reads version {VERSION}."),
    )
    name = text(1024, min_length=1, required=True)
    description = text(2048, load_default="")
    settings = fields.Nested(SettingsSchema, load_default=dict)
    interactions = fields.List(
        fields.Nested(DocumentInteractionSchema),
        required=True,
        validate=validate.Length(max=MAX_DOCUMENT_INTERACTIONS),
    )
    entities = fields.List(fields.Nested(EntityWriteSchema), load_default=list)
    connections = fields.List(text(128, min_length=1), load_default=list)
    tests = DocumentTestsField(
        load_default=list,
        metadata={"description": "Conversation tests (docs/tests.md); interactions by name"},
    )
    knowledge = fields.List(
        fields.Nested(DocumentKnowledgeSchema),
        load_default=list,
        validate=validate.Length(max=MAX_DOCUMENTS),
        metadata={"description": "FAQ pairs whole, other documents summed up (docs/knowledge.md)"},
    )


INTERACTION = InteractionSchema()
INTERACTION_CONTENT = InteractionWriteSchema()


class ImportQuerySchema(Schema):
    dry_run = fields.Boolean(
        truthy={"true"},
        falsy={"false"},
        data_key="dryRun",
        load_default=False,
        metadata={"description": "true: answer the report, write nothing"},
    )
    name = text(
        1024,
        min_length=1,
        metadata={
            "description": "The story's name when the agent or project names itself nowhere "
            "(its file's or folder's name, as the console and the command send it)"
        },
    )


class ExportQuerySchema(Schema):
    format = fields.String(
        load_default="json",
        validate=validate.OneOf(["json", "yaml"]),
        metadata={"description": "json (default) or yaml"},
    )


def exported_document(exported: Exported) -> dict[str, Any]:
    """The export's document: each value as the API writes it."""
    story = StoryContent(
        name=exported.name,
        description=exported.description,
        settings=SettingsSchema().dump(asdict(exported.settings)),
        structure=exported.structure,
        interactions={i: _as_written(v) for i, v in exported.interactions.items()},
        connection_names=exported.connection_names,
        awaited=exported.awaited,
        awaited_handoffs=exported.awaited_handoffs,
    )
    return to_document(
        story,
        [entity_body(e) for e in exported.entities],
        [written_test(t) for t in exported.tests],
        [DocumentKnowledgeSchema().dump(_summary(d)) for d in exported.knowledge],
    )


def _summary(document: StoredDocument) -> dict[str, Any]:
    if document.kind == "faq":
        return {"title": document.title, "kind": "faq", "faq": document.faq}
    return {
        "title": document.title,
        "kind": "text",
        "media_type": document.media_type,
        "sha256": document.sha256,
        "passages": document.passages,
        "characters": document.characters,
        **({} if document.url is None else {"url": document.url}),
    }


def _knowledge(written: Sequence[dict[str, Any]]) -> tuple[list[StoredDocument], list[Unmapped]]:
    """The FAQ documents of an uploaded story document, each under a new id, and a row of
    the report for each other document (its text is not in the file)."""
    now = datetime.now(UTC)
    faq, left = [], []
    for index, document in enumerate(written):
        if document["kind"] == "faq":
            faq.append(faq_document(new_object_id(), document["title"], document["faq"], now))
            continue
        left.append(
            Unmapped(
                place=f"knowledge[{index}]",
                element=f"document {document['title']!r}",
                reason="a story document sums a file up but does not hold its text: upload "
                "it to the new story (POST /stories/:id/knowledge), or its url",
            )
        )
    return faq, left


def _as_written(interaction: Interaction) -> dict[str, Any]:
    """An interaction as `POST /stories/:id/interactions` takes it, with its type."""
    written: dict[str, Any] = INTERACTION.dump(interaction)
    del written["id"]
    for parameter in written["parameters"]:
        del parameter["required"]
    return written


def read_upload(
    media_type: str, data: bytes, content_type: str = "", name: str = ""
) -> StoryUpload:
    """An upload checked whole: every problem it has, at its place, in one 400; CPU work
    (run it in a worker thread). `content_type` and `name`: as `sources.translated`
    takes them."""
    try:
        source, translated = sources.translated(media_type, data, content_type, name)
    except TranslationError as error:
        raise BadRequest(str(error)) from None
    return checked_upload(source, translated)


def checked_upload(
    source: str, translated: Translated, new_id: Callable[[], str] | None = None
) -> StoryUpload:
    """A translated upload checked whole (see `read_upload`), each interaction under a
    `new_id()` (by default a new UUID) in the document's order."""
    check_text(translated.document)
    try:
        document = StoryDocumentSchema().load(translated.document)
    except ValidationError as error:
        messages = (
            error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
        )
        raise ValidationFailed.of_tree(messages, limit=MAX_REPORTED_PROBLEMS) from None
    read = read_document(document) if new_id is None else read_document(document, new_id)
    errors: dict[Any, Any] = {}
    interactions: dict[str, Interaction] = {}
    for interaction_id, content in read.content.interactions.items():
        checkpoint()
        try:
            loaded = INTERACTION_CONTENT.load(content)
        except ValidationError as error:
            index = read.index_of[interaction_id]
            errors = _merged(errors, {"interactions": {index: error.messages}})
            continue
        interactions[interaction_id] = replace(loaded, id=interaction_id, kind=content["type"])
    if errors or read.problems:
        raise problems_error(read.problems, errors)
    settings = Settings(**document["settings"])
    unspoken_in_tests = [
        Problem(("tests", index, *place), message)
        for index, test in enumerate(document["tests"])
        for place, message in unspoken(test, settings.spoken())
    ]
    if unspoken_in_tests:
        raise problems_error(unspoken_in_tests)
    faq, left_out = _knowledge(document["knowledge"])
    for default in default_interactions(settings.language):
        if default.kind in read.added:
            interactions[read.added[default.kind]] = replace(default, id=read.added[default.kind])
    return StoryUpload(
        source=source,
        name=read.content.name,
        description=read.content.description,
        settings=settings,
        structure=read.content.structure,
        interactions=interactions,
        keys=read.keys,
        index_of=read.index_of,
        connections=read.connections,
        handoffs=read.handoffs,
        added=list(read.added),
        entities=document["entities"],
        unmapped=[*translated.unmapped, *left_out],
        tests=document["tests"],
        faq=faq,
    )


def problems_error(
    problems: Sequence[Problem], found: dict[Any, Any] | None = None
) -> ValidationFailed:
    """One 400 listing the problems at their places, beside the error tree `found` by the
    schemas, if any."""
    errors: dict[Any, Any] = found or {}
    for problem in problems:
        errors = _merged(errors, _tree(problem))
    return ValidationFailed.of_tree(errors, limit=MAX_REPORTED_PROBLEMS)


def _tree(problem: Problem) -> dict[Any, Any]:
    tree: Any = [problem.message]
    for part in reversed(problem.path):
        tree = {part: tree}
    return dict(tree)


def _merged(into: dict[Any, Any], tree: dict[Any, Any]) -> dict[Any, Any]:
    for name, value in tree.items():
        held = into.get(name)
        if isinstance(held, dict) and isinstance(value, dict):
            into[name] = _merged(held, value)
        elif isinstance(held, list) and isinstance(value, list):
            into[name] = held + value
        else:
            into[name] = value
    return into
