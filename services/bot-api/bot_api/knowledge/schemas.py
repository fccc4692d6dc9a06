"""A story's documents and FAQ pairs as request bodies and answers (docs/knowledge.md)."""

from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate, validates_schema

from bot_api.common.schemas import text as text_field
from bot_api.common.schemas import text_list
from bot_api.knowledge.reading import DOCUMENT_TYPES
from bot_api.knowledge.records import StoredDocument, StoredPassage
from bot_api.knowledge.service import Question
from shared.envelope_schemas import success_schema
from shared.timeutil import iso

MAX_TITLE = 200
MAX_TEXT = 2_000_000
MAX_FAQ_PAIRS = 2000
CSV_TYPE = "text/csv"
UPLOAD_TYPES = (*DOCUMENT_TYPES, CSV_TYPE, "application/json")
"""What `POST /stories/:id/knowledge` takes: a document file, FAQ pairs as CSV, or the
JSON body."""


class FaqPairWriteSchema(Schema):
    """An FAQ pair as written (a request's, a story document's)."""

    question = text_field(1000, 1, required=True)
    alternatives = text_list(50, 1000, min_length=1, load_default=list)
    answer = text_field(4000, 1, required=True)

    @post_load
    def make(self, data: dict[str, Any], **kwargs: Any) -> Question:
        return Question(data["question"], data["answer"], tuple(data["alternatives"]))


class FaqPairSchema(FaqPairWriteSchema):
    """An FAQ pair as a document's read shows it, with its id (the `passageId` of its
    answers)."""

    id = fields.String(dump_only=True)


class KnowledgeWriteSchema(Schema):
    """The JSON body: a title and exactly one of `text`, `url` or `faq`."""

    title = text_field(MAX_TITLE, 1, required=True)
    text = text_field(MAX_TEXT, 1)
    url = fields.Url(schemes={"http", "https"}, validate=validate.Length(max=2000))
    faq = fields.List(
        fields.Nested(FaqPairWriteSchema), validate=validate.Length(min=1, max=MAX_FAQ_PAIRS)
    )
    language = text_field(40, 1)

    @validates_schema
    def one_source(self, data: dict[str, Any], **kwargs: Any) -> None:
        given = [name for name in ("text", "url", "faq") if name in data]
        if len(given) != 1:
            raise ValidationError("send exactly one of text, url or faq", "text")


class UploadQuerySchema(Schema):
    """A file's title (and language), sent beside it in the query string."""

    title = text_field(MAX_TITLE, 1)
    language = text_field(40, 1)


class DocumentSchema(Schema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ["text", "faq"]})
    mediaType = fields.String(required=True, attribute="media_type")
    passages = fields.Integer(required=True, metadata={"description": "Passages answered from"})
    vectorsPending = fields.Method(
        "pending", required=True, metadata={"description": "Passages whose meaning is not in"}
    )
    characters = fields.Integer(required=True)
    sha256 = fields.String(required=True)
    revision = fields.Integer(required=True)
    url = fields.String(allow_none=True, metadata={"description": "Where it was fetched from"})
    language = fields.String(allow_none=True)
    faq = fields.List(fields.Nested(FaqPairSchema), required=True)
    createdAt = fields.Function(lambda d: iso(d.created_at), required=True)
    updatedAt = fields.Function(lambda d: iso(d.updated_at), required=True)

    def pending(self, document: StoredDocument) -> int:
        return document.vectors_pending


class PassageSchema(Schema):
    id = fields.Function(lambda p: p.passage.id, required=True)
    text = fields.Function(lambda p: p.passage.text, required=True)
    heading = fields.Function(lambda p: list(p.passage.heading), required=True)
    page = fields.Function(lambda p: p.passage.page)
    start = fields.Function(lambda p: p.passage.start, required=True)
    end = fields.Function(lambda p: p.passage.end, required=True)


def passages_body(passages: list[StoredPassage]) -> list[dict[str, Any]]:
    return list(PassageSchema(many=True).dump(passages))


class FetchedSchema(success_schema("errorType")):  # type: ignore[misc]
    changed = fields.Boolean(
        required=True, metadata={"description": "False: the content was unchanged, kept as it was"}
    )
