"""The misses inbox's bodies and answers (docs/history.md)."""

from marshmallow import Schema, fields, validate

from bot_api.common.schemas import LanguageCode, text, text_list
from bot_api.domain.interactions import MAX_USER_SAYS
from bot_api.history.schemas import CandidateSchema
from bot_api.inbox.repository import MAX_INBOX_TURNS
from bot_api.interactions.responses import stored_response

MESSAGES = text_list(
    MAX_USER_SAYS,
    2048,
    min_items=1,
    min_length=1,
    metadata={"description": "Only these messages of the cluster (default: all of them)"},
)


class NearPassageSchema(Schema):
    id = fields.String(required=True)
    documentId = fields.String(required=True)
    text = fields.String(required=True)
    score = fields.Float(required=True, metadata={"description": "Its share of the words"})


class ClusterSchema(Schema):
    id = fields.String(required=True)
    count = fields.Integer(required=True, metadata={"description": "Unresolved turns"})
    first = fields.AwareDateTime(required=True)
    last = fields.AwareDateTime(required=True)
    examples = fields.List(fields.String(), required=True)
    messages = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Its distinct messages, most frequent first (at most 99)"},
    )
    suggested = fields.Nested(CandidateSchema, allow_none=True, required=True)
    languages = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={
            "description": "ISO 639-1 code -> how many of its turns were read in that "
            "language, the most first; only in a story with further languages "
            "(docs/languages.md)"
        },
    )
    passages = fields.List(
        fields.Nested(NearPassageSchema),
        required=True,
        metadata={"description": "The story's passages nearest its messages (docs/knowledge.md)"},
    )


class InboxQuerySchema(Schema):
    language = LanguageCode(
        metadata={
            "description": "Only the clusters holding a turn read in this language (ISO "
            "639-1 code or name, as a story's languages)"
        }
    )


class InboxSchema(Schema):
    total = fields.Integer(required=True, metadata={"description": "Clusters in all"})
    clusters = fields.List(fields.Nested(ClusterSchema), required=True)


class AssignSchema(Schema):
    interaction = fields.String(required=True, validate=validate.Length(min=1, max=64))
    messages = MESSAGES


class NewInteractionSchema(Schema):
    name = text(1024, min_length=1, required=True)
    messages = MESSAGES
    responses = fields.List(
        stored_response(),
        validate=validate.Length(max=11),
        metadata={"description": "What it answers, as an interaction's responses"},
    )


class IgnoreSchema(Schema):
    messages = MESSAGES


class ReopenSchema(Schema):
    turns = fields.List(
        fields.String(validate=validate.Length(min=1, max=64)),
        required=True,
        validate=validate.Length(max=MAX_INBOX_TURNS),
    )


class ResolvedSchema(Schema):
    interaction = fields.String()
    added = fields.List(fields.String(), metadata={"description": "Phrases added"})
    notAdded = fields.List(
        fields.String(),
        metadata={"description": "Past the interaction's 99 phrases: left in the inbox"},
    )
    ignored = fields.List(fields.String())
    turns = fields.List(fields.String(), required=True, metadata={"description": "Resolved"})


class ReopenedSchema(Schema):
    reopened = fields.Integer(required=True)
