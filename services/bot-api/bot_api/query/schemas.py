"""POST /query: the request and the result (docs/query.md), and the rendering of a
turn's outcome as that result (also sent to webhooks)."""

from typing import Any, ClassVar, assert_never

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from bot_api.common.schemas import MAX_QUERY_PARAMETERS, NAME_PATTERN, ParameterValue, text
from bot_api.domain.knowledge import KnowledgeAnswer
from bot_api.domain.responses import (
    Button,
    ButtonTemplate,
    Card,
    FulfillmentItem,
    Handoff,
    Image,
    QuickReplies,
    Text,
)
from bot_api.engine.turn import Debug, Outcome, Turn
from bot_api.interactions.schemas import TRIGGER
from shared import fulfillment
from shared.envelope import envelope
from shared.envelope_schemas import status_schema
from shared.ids import is_channel_session
from shared.schema_fields import StrictBoolean, StrictNumber, TypedUnion
from shared.timeutil import iso

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


def query_body(session_id: str, turn: Turn, outcome: Outcome) -> dict[str, Any]:
    """/query's answer to a turn (also a channel's, shared/events.py ChannelTurnReply)."""
    return {
        "result": result_body(turn, outcome),
        "sessionId": session_id,
        **envelope(QUERY_STATUS_FIELD, 200, "success"),
    }


def result_body(turn: Turn, outcome: Outcome) -> dict[str, Any]:
    """The query result of a turn, as /query answers it and a webhook receives it."""
    interaction = outcome.interaction
    body: dict[str, Any] = {
        "source": outcome.source,
        "resolvedQuery": turn.query or "",
        "trigger": turn.trigger or "",
        "confidence": outcome.threshold,
        "score": outcome.score,
        "lifespan": outcome.lifespan,
        "incomplete": outcome.incomplete,
        "storyId": outcome.story_id,
        "interaction": None
        if interaction is None
        else {
            "id": interaction.id,
            "name": interaction.name,
            "action": interaction.action,
            "type": interaction.kind,
        },
        "parameters": dict(outcome.parameters),
        "contexts": [
            {"id": c.id, "name": c.name, "lifespan": c.lifespan} for c in outcome.contexts
        ],
        "fulfillment": [fulfillment.item_body(i) for i in answer_items(outcome.fulfillment)],
    }
    if outcome.language:
        body["language"] = outcome.language
        body["answeredIn"] = outcome.answered_in
    known = outcome.knowledge
    if known is not None and known.answer is not None:
        body["knowledge"] = knowledge_body(known.answer)
    if outcome.debug is not None:
        body["debug"] = _debug_body(outcome.debug)
        if known is not None:
            body["debug"]["knowledge"] = {
                "threshold": known.threshold,
                "passages": [
                    {
                        "id": p.passage_id,
                        "documentId": p.document_id,
                        "text": p.text,
                        "score": p.score,
                        "lexical": p.lexical,
                        **({} if p.meaning is None else {"meaning": p.meaning}),
                    }
                    for p in known.ranked
                ],
            }
    if outcome.handoff is not None:
        body["handoff"] = {
            "connection": outcome.handoff.connection,
            "since": iso(outcome.handoff.since),
        }
    return body


def knowledge_body(answer: KnowledgeAnswer) -> dict[str, Any]:
    citation = answer.citation
    body: dict[str, Any] = {
        "documentId": citation.document_id,
        "title": citation.title,
        "answer": answer.answer,
        "passage": answer.passage,
        "score": answer.score,
        "passageId": answer.passage_id,
        "generated": answer.generated,
        "cites": list(answer.cites),
    }
    if answer.generation is not None:
        body["generation"] = {
            "outcome": answer.generation.outcome,
            "seconds": answer.generation.seconds,
            "promptTokens": answer.generation.prompt_tokens,
            "completionTokens": answer.generation.completion_tokens,
        }
    if answer.question is not None:
        body["question"] = answer.question
    if citation.heading:
        body["heading"] = list(citation.heading)
    if citation.page is not None:
        body["page"] = citation.page
    if citation.url is not None:
        body["url"] = citation.url
    return body


def answer_items(items: tuple[FulfillmentItem, ...]) -> tuple[fulfillment.Item, ...]:
    """A turn's items as the answer contract has them (shared/fulfillment.py), which
    writes them for the /query result, a webhook's payload and a channel's reply."""
    return tuple(_answer_item(item) for item in items)


def _answer_item(item: FulfillmentItem) -> fulfillment.Item:
    match item:
        case Text():
            return fulfillment.Text(item.message, item.delay)
        case QuickReplies():
            buttons = _answer_buttons(item.buttons)
            return fulfillment.QuickReplies(item.title, item.replies, buttons, item.delay)
        case Image():
            return fulfillment.Image(item.image_url, item.delay)
        case Card():
            buttons = _answer_buttons(item.buttons)
            return fulfillment.Card(item.title, item.subtitle, item.image_url, buttons, item.delay)
        case ButtonTemplate():
            return fulfillment.ButtonTemplate(item.title, _answer_buttons(item.buttons), item.delay)
        case Handoff():
            return fulfillment.Handoff(item.connection, item.delay)
        case _:
            assert_never(item)


def _answer_buttons(buttons: tuple[Button, ...]) -> tuple[fulfillment.Button, ...]:
    return tuple(fulfillment.Button(b.title, b.postback, b.kind, b.height) for b in buttons)


def _debug_body(debug: Debug) -> dict[str, Any]:
    return {
        "words": list(debug.words),
        "entities": [
            {"entity": m.entity, "value": m.value, "text": m.text} for m in debug.entities
        ],
        "confidence": debug.confidence,
        "candidates": [
            {
                "id": c.id,
                "name": c.name,
                "score": c.score,
                "centroid": c.centroid,
                "closestPhrase": c.closest_phrase,
                "lexical": c.lexical,
                "semantic": c.semantic,
                "phrase": c.phrase,
                "tier": c.tier,
            }
            for c in debug.candidates
        ],
        "decision": debug.decision,
    }
