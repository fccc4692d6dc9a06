"""The webhook of a matched interaction, without the network: what is sent, and how an
answer joins the turn (DESIGN.md "Webhooks")."""

import uuid
from collections.abc import Mapping
from typing import Any

from bot_api.engine.rendering import Choose, text_item

WEBHOOK_NODE = "WEBHOOK"


def request_body(
    session_id: str, interaction_id: str, interaction: Mapping[str, Any], result: Mapping[str, Any]
) -> dict[str, Any]:
    parameters = result["parameters"]
    return {
        "chatId": session_id,
        "messageId": str(uuid.uuid4()),
        "userId": session_id,
        "externalId": session_id,
        "blockId": interaction_id,
        "node": {
            "name": interaction["name"],
            "type": WEBHOOK_NODE,
            "webhookId": "",
            "webhookName": "",
        },
        "userAttributes": {k: v for k, v in parameters.items() if k.startswith("default_")},
        "attributes": {k: "" if v is None else str(v) for k, v in parameters.items()},
        "sessionId": session_id,
        "result": dict(result),
    }


def apply_answer(
    result: dict[str, Any], answer: Mapping[str, Any], choose: Choose
) -> dict[str, Any]:
    """The result with the answer's responses after the interaction's own, its attributes
    filling or replacing parameters, and `source: webhook` when it answered something."""
    items = [item for response in answer["responses"] for item in _items(response, choose)]
    return {
        **result,
        "source": "webhook" if items else result["source"],
        "parameters": {**result["parameters"], **answer["attributes"]},
        "fulfillment": [*result["fulfillment"], *items],
    }


def _buttons(buttons: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"title": b["title"], "postback": b["value"], "type": b["type"]}
        | ({"height": b["height"]} if "height" in b else {})
        for b in buttons
    ]


def _items(response: Mapping[str, Any], choose: Choose) -> list[dict[str, Any]]:
    delay = {"delay": response["delay"]}
    kind = response["type"]
    if kind in ("text", "randomText"):
        message = response.get("message") or choose(response["messages"])
        return [text_item(message) | delay]
    if kind == "image":
        return [{"type": "image", "imageUrl": response["imageUrl"]} | delay]
    if kind == "quickReplies":
        replies = [b["title"] for b in response["buttons"]]
        quick = {"type": "quickReply", "title": response["title"], "replies": replies}
        return [
            {"type": "quickReply", "messages": [quick], "buttons": _buttons(response["buttons"])}
            | delay
        ]
    if kind == "cards":
        return [
            {
                "type": "card",
                "title": element["title"],
                "subtitle": element["subtitle"],
                "imageUrl": element["imageUrl"],
                "buttons": _buttons(element["buttons"]),
            }
            | delay
            for element in response["elements"]
        ]
    return [
        {
            "type": "buttonTemplate",
            "title": response["title"],
            "buttons": _buttons(response["buttons"]),
        }
        | delay
    ]
