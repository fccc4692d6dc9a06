"""POST /query: the request and the result (docs/query.md); a turn's outcome rendered as
that result is `answer_body.py`."""

from typing import Any, ClassVar

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from bot_api.common.schemas import MAX_QUERY_PARAMETERS, NAME_PATTERN, ParameterValue, text
from bot_api.engine.turn import Turn
from bot_api.interactions.schemas import TRIGGER
from shared.envelope_schemas import status_schema
from shared.ids import is_channel_session
from shared.schema_fields import StrictBoolean, StrictNumber, TypedUnion

QUERY_STATUS_FIELD = "type"

QUERY_CHARACTERS = 2048
"""The longest `query` /query takes; a channel's longer message is matched on its first
2,048 characters (query/channel_turns.py)."""
MAX_QUERY_BODY_BYTES = 1024 * 1024
"""The most a /query body may hold. Every query the schema takes fits when sent as UTF-8
(99 parameters of 2,048 four-byte characters, ~870 KB); only one that escapes tens of
thousands of characters (\\u sequences of six bytes: control characters must be) may
not. The public key can send it, so it bounds what one request makes the service
decode: about 40 ms of the interpreter for a body of a million brackets."""


class SessionId(fields.Field[str]):
    """A string or a number; kept as text, 1 to 256 characters."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ValidationError("Must be a string or a number.")
        as_text = value if isinstance(value, str) else str(value)
        if not 1 <= len(as_text) <= 256:
            raise ValidationError("Length must be between 1 and 256.")
        return as_text


CHANNEL_SESSION_REFUSAL = (
    "The form <channel id>:<conversation>:<user> is reserved for channels' sessions."
)


class QuerySessionId(SessionId):
    """/query's: never one of the form of a channel's sessions (`<channel id>:…:…`), so
    no caller of /query, with the public key or the developer token, can read or speak
    in a channel user's conversation (issue 29)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        as_text = super()._deserialize(value, attr, data, **kwargs)
        if is_channel_session(as_text):
            raise ValidationError(CHANNEL_SESSION_REFUSAL)
        return as_text


CHANNEL_SESSION_PATTERN = r"^([0-9a-fA-F]{24}|[0-9a-fA-F]{32}):[\s\S]*:"
"""shared.ids.is_channel_session, for the OpenAPI document."""

SESSION_ID_OPENAPI = {
    "oneOf": [
        {
            "type": "string",
            "minLength": 1,
            "maxLength": 256,
            "not": {"pattern": CHANNEL_SESSION_PATTERN},
        },
        {"type": "number"},
    ],
    "description": (
        "A string, or a number kept as its text; not of the form "
        "`<channel id>:<conversation>:<user>` (a channel id: 24 or 32 hexadecimal digits), "
        "which names channels' sessions"
    ),
}


class QueryRequestSchema(Schema):
    class Meta:
        json_schema: ClassVar = {  # the rule of exactly_one_input, for the OpenAPI document
            "oneOf": [{"required": [name]} for name in ("query", "trigger", "goto")]
        }

    sessionId: SessionId = QuerySessionId(required=True, metadata=SESSION_ID_OPENAPI)
    storyId = fields.String(validate=validate.Length(min=1, max=64))
    query = text(QUERY_CHARACTERS, min_length=1, metadata={"description": "What the user said"})
    trigger = fields.String(validate=[validate.Length(min=1, max=50), TRIGGER])
    goto = fields.String(validate=validate.Length(min=1, max=64))
    parameters = fields.Dict(
        keys=fields.String(validate=[validate.Length(min=1, max=128), NAME_PATTERN]),
        values=ParameterValue(),
        validate=validate.Length(max=MAX_QUERY_PARAMETERS),
        load_default=dict,
    )
    confidence = StrictNumber(validate=validate.Range(min=0, max=1))
    lifespan = fields.Integer(strict=True, validate=validate.Range(min=1, max=10))
    reset = StrictBoolean(load_default=False)
    debug = StrictBoolean(load_default=False)

    @validates_schema
    def exactly_one_input(self, data: dict[str, Any], **kwargs: Any) -> None:
        given = [name for name in ("query", "trigger", "goto") if name in data]
        if len(given) != 1:
            raise ValidationError(
                f"Send exactly one of query, trigger and goto (got {', '.join(given) or 'none'}).",
                field_name="query",
            )


class ItemSchema(Schema):
    type = fields.String(required=True)
    delay = fields.Integer(metadata={"description": "Milliseconds, on items from a webhook"})


class TextItemSchema(ItemSchema):
    message = fields.String(required=True)


class QuickReplyMessageSchema(Schema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    replies = fields.List(fields.String(), required=True)


class ButtonItemSchema(Schema):
    title = fields.String(required=True)
    postback = fields.String(required=True)
    type = fields.String(metadata={"description": "From a webhook: postback, goto, url, ..."})
    height = fields.String(metadata={"description": "Of a webview button"})


class QuickReplyItemSchema(ItemSchema):
    messages = fields.List(fields.Nested(QuickReplyMessageSchema), required=True)
    buttons = fields.List(
        fields.Nested(ButtonItemSchema), metadata={"description": "From a webhook"}
    )


class ImageItemSchema(ItemSchema):
    imageUrl = fields.String(required=True)


class CardItemSchema(ItemSchema):
    title = fields.String(required=True)
    subtitle = fields.String(required=True)
    imageUrl = fields.String(required=True)
    buttons = fields.List(fields.Nested(ButtonItemSchema), required=True)


class ButtonTemplateItemSchema(ItemSchema):
    title = fields.String(required=True)
    buttons = fields.List(fields.Nested(ButtonItemSchema), required=True)


class HandoffItemSchema(ItemSchema):
    connection = fields.String(required=True)


FULFILLMENT_ITEMS = {
    "text": TextItemSchema,
    "quickReply": QuickReplyItemSchema,
    "image": ImageItemSchema,
    "card": CardItemSchema,
    "buttonTemplate": ButtonTemplateItemSchema,
    "handoff": HandoffItemSchema,
}


class MatchedInteractionSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    action = fields.String(required=True)
    type = fields.String(required=True, metadata={"enum": ["welcome", "fallback", "standard"]})


class ActiveContextSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    lifespan = fields.Integer(required=True)


class HandoffStateSchema(Schema):
    connection = fields.String(required=True)
    since = fields.String(required=True, metadata={"format": "date-time"})


class KnowledgeGenerationSchema(Schema):
    outcome = fields.String(
        required=True,
        metadata={
            "description": "generated, or why the extractive answer was sent: timeout, "
            "rate_limited, http_error, unreachable, malformed, empty, uncited, miscited"
        },
    )
    seconds = fields.Float(required=True)
    promptTokens = fields.Integer(required=True)
    completionTokens = fields.Integer(required=True)


class KnowledgeAnswerSchema(Schema):
    documentId = fields.String(required=True)
    title = fields.String(required=True)
    answer = fields.String(
        required=True,
        metadata={"description": "The answering sentence, or the LLM's answer if generated"},
    )
    generated = fields.Boolean(
        required=True,
        metadata={
            "description": "Written by the LLM from the passages: docs/knowledge-generation.md"
        },
    )
    cites = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "The passages a generated answer cites, its [1], [2], ..."},
    )
    generation = fields.Nested(
        KnowledgeGenerationSchema,
        metadata={"description": "How the LLM was asked, when the story generates answers"},
    )
    passage = fields.String(required=True, metadata={"description": "The passage it is in"})
    score = fields.Float(required=True)
    passageId = fields.String(required=True)
    question = fields.String(metadata={"description": "The FAQ pair's question matched"})
    heading = fields.List(fields.String())
    page = fields.Integer()
    url = fields.String()


class QueryResultSchema(Schema):
    source = fields.String(required=True, metadata={"enum": ["agent", "webhook"]})
    resolvedQuery = fields.String(required=True)
    trigger = fields.String(required=True)
    confidence = fields.Float(required=True, metadata={"description": "The threshold in force"})
    score = fields.Float(required=True, metadata={"description": "The match score, 0..1"})
    lifespan = fields.Integer(required=True)
    incomplete = fields.Boolean(required=True)
    storyId = fields.String(required=True)
    interaction = fields.Nested(MatchedInteractionSchema, required=True, allow_none=True)
    parameters = fields.Dict(required=True)
    contexts = fields.List(fields.Nested(ActiveContextSchema), required=True)
    fulfillment = fields.List(TypedUnion(FULFILLMENT_ITEMS), required=True)
    debug = fields.Dict(metadata={"description": "With debug: true: candidates and the decision"})
    handoff = fields.Nested(
        HandoffStateSchema,
        metadata={"description": "A person has the conversation: the bot answers nothing"},
    )
    knowledge = fields.Nested(
        KnowledgeAnswerSchema,
        metadata={"description": "The story's documents answered (docs/knowledge.md)"},
    )
    language = fields.String(
        metadata={"description": "ISO 639-1 code of the story language the message was read in"}
    )
    answeredIn = fields.String(
        metadata={
            "description": "ISO 639-1 code of the answer's language: the one read where the "
            "interaction has a variant in it, else the story's default (docs/languages.md)"
        }
    )


class QueryResponseSchema(Schema):
    result = fields.Nested(QueryResultSchema, required=True)
    sessionId = fields.String(required=True)
    timestamp = fields.String(required=True)
    status = fields.Nested(status_schema("type"), required=True)


def turn_of(body: dict[str, Any]) -> Turn:
    """The turn a loaded /query body asks for."""
    return Turn(
        query=body.get("query"),
        trigger=body.get("trigger"),
        goto=body.get("goto"),
        parameters=body["parameters"],
        confidence=body.get("confidence"),
        lifespan=body.get("lifespan"),
        reset=body["reset"],
        debug=body["debug"],
    )
