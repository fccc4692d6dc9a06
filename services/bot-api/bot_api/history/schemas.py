"""The history API's query strings and answers (docs/history.md)."""

from marshmallow import Schema, fields, validate

from bot_api.common.schemas import LanguageCode, text

OUTCOMES = ("matched", "fallback", "incomplete", "trigger", "goto", "handoff", "knowledge")
MAX_CONVERSATIONS_PAGE = 100


def segment_filter(description: str) -> fields.String:
    """A turn's `default_source`, or a channel's id, to filter by (history, analytics)."""
    return fields.String(
        validate=validate.Length(min=1, max=64), metadata={"description": description}
    )


class TimeRangeSchema(Schema):
    since = fields.AwareDateTime(
        data_key="from", format="iso", metadata={"description": "ISO 8601 with a zone"}
    )
    until = fields.AwareDateTime(
        data_key="to", format="iso", metadata={"description": "ISO 8601 with a zone, excluded"}
    )


class ConversationsQuerySchema(TimeRangeSchema):
    outcome = fields.String(
        validate=validate.OneOf(OUTCOMES),
        metadata={"description": "Conversations with at least one turn of this outcome"},
    )
    interaction = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "Conversations this interaction answered in"},
    )
    text = text(
        200, min_length=1, metadata={"description": "Conversations where a message contains it"}
    )
    source = segment_filter(
        "Conversations with a turn of this `default_source` (`widget`, `console`, a "
        "channel's type such as `telegram`, or what a client sent)"
    )
    channel = segment_filter("Conversations with a turn this channel (its id) carried")
    language = LanguageCode(
        metadata={
            "description": "Conversations with a turn read in this language (ISO 639-1 code or "
            "name, as a story's languages): a story of one language records none "
            "(docs/languages.md)"
        }
    )
    test = fields.Boolean(
        metadata={
            "description": "true: only the console's test chat's conversations; false: all "
            "but them; absent: both"
        }
    )
    cursor = fields.String(
        validate=validate.Length(min=1, max=512),
        metadata={"description": "The previous page's nextCursor"},
    )
    limit = fields.Integer(
        validate=validate.Range(min=1, max=MAX_CONVERSATIONS_PAGE), load_default=20
    )


class ExportQuerySchema(TimeRangeSchema):
    format = fields.String(validate=validate.OneOf(("jsonl", "csv")), load_default="jsonl")


class ConversationSummarySchema(Schema):
    sessionId = fields.String(required=True)
    started = fields.String(required=True, metadata={"description": "Time of the first turn"})
    lastAt = fields.String(required=True, metadata={"description": "Time of the last turn"})
    turns = fields.Integer(required=True)
    fallbacks = fields.Integer(required=True)


class ConversationPageSchema(Schema):
    items = fields.List(fields.Nested(ConversationSummarySchema), required=True)
    nextCursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last"},
    )


class AnsweredBySchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    type = fields.String(required=True)


class CandidateSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    score = fields.Float(required=True)


class ResolutionSchema(Schema):
    by = fields.String(required=True)
    action = fields.String(required=True)
    at = fields.String(required=True)
    interactionId = fields.String(allow_none=True)


class KnowledgeSourceSchema(Schema):
    documentId = fields.String(required=True)
    title = fields.String(required=True)
    passageId = fields.String(required=True)
    score = fields.Float(required=True)


class TurnGenerationSchema(Schema):
    outcome = fields.String(required=True)
    seconds = fields.Float(required=True)
    promptTokens = fields.Integer(required=True)
    completionTokens = fields.Integer(required=True)


class PersonSchema(Schema):
    name = fields.String(required=True)
    role = fields.String(required=True)
    memberId = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The account member; null: the account's developer token"},
    )


class TurnSchema(Schema):
    at = fields.String(required=True)
    outcome = fields.String(required=True)
    query = fields.String(metadata={"description": "What the user said (redacted)"})
    trigger = fields.String()
    goto = fields.String()
    interaction = fields.Nested(AnsweredBySchema, allow_none=True, required=True)
    score = fields.Float(required=True)
    threshold = fields.Float(required=True)
    candidates = fields.List(fields.Nested(CandidateSchema), required=True)
    parameters = fields.Dict(required=True)
    contexts = fields.List(fields.String(), required=True)
    fulfillment = fields.String(required=True)
    webhook = fields.String(allow_none=True, required=True)
    latencyMs = fields.Float(required=True)
    defaultSource = fields.String(allow_none=True)
    defaultLanguage = fields.String(allow_none=True)
    language = fields.String(
        metadata={
            "description": "ISO 639-1 code of the story language the message was read in; "
            "only in a story with further languages (docs/languages.md)"
        }
    )
    answeredIn = fields.String(
        metadata={"description": "ISO 639-1 code of the answer's language; with `language`"}
    )
    channel = fields.String(
        allow_none=True,
        metadata={"description": "The id of the channel that carried the turn; null: /query"},
    )
    test = fields.Boolean(
        metadata={"description": "The console's test chat asked it (docs/history.md)"}
    )
    knowledge = fields.Nested(
        KnowledgeSourceSchema,
        metadata={"description": "The story's documents answered: from where (knowledge)"},
    )
    resolution = fields.Nested(ResolutionSchema, allow_none=True)
    generation = fields.Nested(
        TurnGenerationSchema,
        metadata={
            "description": "How the LLM was asked to write the knowledge answer, if it was "
            "(docs/knowledge-generation.md)"
        },
    )
    person = fields.Nested(
        PersonSchema,
        metadata={
            "description": "Who at the agent desk wrote the turn, took the conversation "
            'over or gave it back (docs/teams.md "The agent desk")'
        },
    )
    givenBack = fields.Boolean(
        metadata={
            "description": "Present (true) on the turn that gave the conversation back to "
            "the bot: its fulfillment is what the user was told"
        }
    )
    takenOver = fields.Boolean(
        metadata={
            "description": "Present (true) on the turn of `person` taking the conversation "
            "over: it said nothing to the user (an empty fulfillment)"
        }
    )
    truncated = fields.Boolean(
        metadata={
            "description": "Present (true) when the user's message was longer than /query "
            "takes (a channel's): `query` is its first 2,048 characters, what was matched"
        }
    )


class TranscriptSchema(Schema):
    sessionId = fields.String(required=True)
    turns = fields.List(fields.Nested(TurnSchema), required=True)
