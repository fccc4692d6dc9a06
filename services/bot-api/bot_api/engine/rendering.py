"""Turning stored response blocks into fulfillment items, with `{{name}}` filled in.

A name with no value renders as empty text, never as the raw placeholder.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

PLACEHOLDER = re.compile(r"\{\{\s*([\w-]+)\s*\}\}")

Choose = Callable[[Sequence[str]], str]


def fill(template: str, parameters: Mapping[str, Any]) -> str:
    def value(match: re.Match[str]) -> str:
        found = parameters.get(match.group(1))
        if found is None:
            return ""
        if isinstance(found, bool):
            return "true" if found else "false"
        return str(found)

    return PLACEHOLDER.sub(value, template)


def render(
    responses: Sequence[Mapping[str, Any]], parameters: Mapping[str, Any], choose: Choose
) -> list[dict[str, Any]]:
    return [_render_one(block, parameters, choose) for block in responses]


def text_item(message: str) -> dict[str, Any]:
    return {"type": "text", "message": message}


def _buttons(buttons: Sequence[Mapping[str, str]], parameters: Mapping[str, Any]) -> list[Any]:
    return [
        {"title": fill(b["title"], parameters), "postback": fill(b["postback"], parameters)}
        for b in buttons
    ]


def _render_one(
    block: Mapping[str, Any], parameters: Mapping[str, Any], choose: Choose
) -> dict[str, Any]:
    kind = block["type"]
    if kind == "text":
        return text_item(fill(choose(block["messages"]), parameters))
    if kind == "quickReply":
        title = fill(block["title"], parameters)
        replies = [fill(reply, parameters) for reply in block["replies"]]
        return {
            "type": "quickReply",
            "messages": [{"type": "quickReply", "title": title, "replies": replies}],
        }
    if kind == "image":
        return {"type": "image", "imageUrl": fill(block["imageUrl"], parameters)}
    if kind == "card":
        return {
            "type": "card",
            "title": fill(block["title"], parameters),
            "subtitle": fill(block["subtitle"], parameters),
            "imageUrl": fill(block["imageUrl"], parameters),
            "buttons": _buttons(block["buttons"], parameters),
        }
    return {
        "type": "buttonTemplate",
        "title": fill(block["title"], parameters),
        "buttons": _buttons(block["buttons"], parameters),
    }
