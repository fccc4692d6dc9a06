"""Turning response blocks into fulfillment items, with `{{name}}` filled in.

Blocks an interaction stores and blocks a webhook answered go through the same
builder. A name with no value leaves no trace: no raw placeholder, no stray space.
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
    Handoff,
    Image,
    QuickReplies,
    Text,
    TextChoice,
)

PLACEHOLDER = re.compile(r"\{\{\s*([\w-]+)\s*\}\}")
BLANKS = " \t"
CLOSING_PUNCTUATION = tuple(".,;:!?)]}…")

Choose = Callable[[Sequence[str]], str]


def fill(template: str, parameters: Mapping[str, Any]) -> str:
    """The template with each `{{name}}` replaced by its value. A placeholder with no value
    takes the blanks around it along: one space stays between words, none before
    punctuation or at either end ("Hello {{name}}!" -> "Hello!")."""
    pieces: list[str | None] = []
    position = 0
    for match in PLACEHOLDER.finditer(template):
        pieces.append(template[position : match.start()])
        pieces.append(_as_text(parameters.get(match.group(1))) or None)
        position = match.end()
    pieces.append(template[position:])
    filled = ""
    gap: bool | None = None  # None: no empty placeholder pending; else whether blanks met it
    for piece in pieces:
        if piece is None:
            kept = filled.rstrip(BLANKS)
            gap = bool(gap) or len(kept) < len(filled)
            filled = kept
            continue
        if gap is not None:
            rest = piece.lstrip(BLANKS)
            gap = gap or len(rest) < len(piece)
            if not rest:
                continue
            if gap and filled and not rest.startswith(CLOSING_PUNCTUATION):
                filled += " "
            piece, gap = rest, None
        filled += piece
    return filled


def _as_text(value: Any) -> str:
    """A parameter as a response says it: a built-in amount of money as "20 EUR", a
    range of times as an ISO 8601 interval ("start/end")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict) and value.keys() == {"amount", "currency"}:
        return f"{value['amount']} {value['currency']}"
    if isinstance(value, dict) and value.keys() == {"start", "end"}:
        return f"{value['start']}/{value['end']}"
    return str(value)


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
        case Handoff():
            return block
