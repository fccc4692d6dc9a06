"""Turning response blocks into fulfillment items, with `{{name}}` filled in.

Blocks an interaction stores and blocks a webhook answered go through the same
builder. A name with no value renders as empty text, never as the raw placeholder.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot_api.domain.responses import (
    Block,
    Button,
    ButtonTemplate,
    Card,
    FulfillmentItem,
    Image,
    QuickReplies,
    Text,
    TextChoice,
)

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


def fulfillment(
    blocks: Sequence[Block], parameters: Mapping[str, Any], choose: Choose
) -> list[FulfillmentItem]:
    return [_item(block, parameters, choose) for block in blocks]


def _buttons(buttons: Sequence[Button], parameters: Mapping[str, Any]) -> tuple[Button, ...]:
    return tuple(
        replace(b, title=fill(b.title, parameters), postback=fill(b.postback, parameters))
        for b in buttons
    )


def _item(block: Block, parameters: Mapping[str, Any], choose: Choose) -> FulfillmentItem:
    match block:
        case TextChoice(messages=messages, delay=delay):
            return Text(fill(choose(messages), parameters), delay)
        case QuickReplies():
            return replace(
                block,
                title=fill(block.title, parameters),
                replies=tuple(fill(reply, parameters) for reply in block.replies),
                buttons=_buttons(block.buttons, parameters),
            )
        case Image():
            return replace(block, image_url=fill(block.image_url, parameters))
        case Card():
            return replace(
                block,
                title=fill(block.title, parameters),
                subtitle=fill(block.subtitle, parameters),
                image_url=fill(block.image_url, parameters),
                buttons=_buttons(block.buttons, parameters),
            )
        case ButtonTemplate():
            return replace(
                block,
                title=fill(block.title, parameters),
                buttons=_buttons(block.buttons, parameters),
            )
