"""A turn's outcome as /query's answer (docs/query.md): the result a webhook receives too,
and the answer's items in their own codec (shared/fulfillment.py) for a channel."""

from typing import Any, assert_never

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
from bot_api.query.schemas import QUERY_STATUS_FIELD
from shared import fulfillment
from shared.envelope import envelope
from shared.timeutil import iso


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
