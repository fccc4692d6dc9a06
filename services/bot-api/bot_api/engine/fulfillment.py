"""Turning response blocks into fulfillment items, with `{{name}}` filled in.

Blocks an interaction stores and blocks a webhook answered go through the same
builder, and so do a parameter's prompts. A name with no value leaves no trace: no raw
placeholder, no stray space.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot_api.domain.greetings import texts_for
from bot_api.domain.responses import (
    PLACEHOLDER,
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
    is_link,
    is_web_address,
    looks_like_web_address,
)

BLANKS = " \t"
CLOSING_PUNCTUATION = tuple(".,;:!?)]}…")
LINKS = ("url", "webview")
"""The webhook button types whose value is an address to open."""

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
    """The blocks as the user is shown them. Every text field goes through `fill`; what
    renders blank (a text, a reply, a button title) or is no web address where one is
    meant (an image, a link button) is left out, and so is a block left with nothing to
    show (docs/query.md "Fulfillment items")."""
    items = (_item(block, parameters, choose) for block in blocks)
    return [item for item in items if item is not None]


def asked(
    prompt: str, replies: Sequence[str], parameters: Mapping[str, Any]
) -> list[FulfillmentItem]:
    """A parameter's prompt as the user is shown it, filled like any response: a text, or
    with its replies a quick reply titled with it, so every channel shows the choices as
    buttons (a click sends the reply, which fills the parameter like a typed answer)."""
    block: Block = QuickReplies(prompt, tuple(replies)) if replies else TextChoice((prompt,))
    return fulfillment((block,), parameters, lambda prompts: prompts[0])


def _said(template: str, parameters: Mapping[str, Any]) -> str:
    """A text field as it is sent: filled in, and "" when that leaves it blank. Every text
    of every block goes through here."""
    filled = fill(template, parameters)
    return filled if filled.strip() else ""


def _buttons(buttons: Sequence[Button], parameters: Mapping[str, Any]) -> tuple[Button, ...]:
    filled = (
        replace(b, title=_said(b.title, parameters), postback=_said(b.postback, parameters))
        for b in buttons
    )
    return tuple(b for b in filled if b.title and _opens(b))


def _opens(button: Button) -> bool:
    """A link button's value is a whole web address or mail link; a stored postback meant
    as a link, a whole web address."""
    if button.kind in LINKS:
        return is_link(button.postback)
    if button.kind is None and looks_like_web_address(button.postback):
        return is_web_address(button.postback)
    return True


def _image(url: str, parameters: Mapping[str, Any]) -> str:
    """The image address filled in, or "" when it is none."""
    filled = _said(url, parameters)
    return filled if is_web_address(filled) else ""


def _item(block: Block, parameters: Mapping[str, Any], choose: Choose) -> FulfillmentItem | None:
    match block:
        case TextChoice(messages=messages, delay=delay):
            message = _said(choose(messages), parameters)
            return Text(message, delay) if message else None
        case QuickReplies():
            replies = tuple(r for r in (_said(r, parameters) for r in block.replies) if r)
            title = _said(block.title, parameters)
            buttons = _buttons(block.buttons, parameters)
            if not (title or replies or buttons):
                return None
            return replace(block, title=title, replies=replies, buttons=buttons)
        case Image():
            image_url = _image(block.image_url, parameters)
            return replace(block, image_url=image_url) if image_url else None
        case Card():
            card = replace(
                block,
                title=_said(block.title, parameters),
                subtitle=_said(block.subtitle, parameters),
                image_url=_image(block.image_url, parameters),
                buttons=_buttons(block.buttons, parameters),
            )
            if not (card.title or card.subtitle or card.image_url or card.buttons):
                return None
            return card
        case ButtonTemplate():
            title = _said(block.title, parameters)
            buttons = _buttons(block.buttons, parameters)
            if not (title or buttons):
                return None
            return replace(block, title=title, buttons=buttons)
        case Handoff():
            return block


def fallback_texts(
    responses: Sequence[Block], language: str, parameters: Mapping[str, Any], choose: Choose
) -> list[FulfillmentItem]:
    """What an interaction that would say nothing says instead (docs/query.md "Silent
    answers"): the text blocks of the fallback interaction's `responses`, else the
    default fallback message in `language`."""
    texts = [block for block in responses if isinstance(block, TextChoice)]
    default = TextChoice(texts_for(language).fallback)
    return fulfillment(texts, parameters, choose) or fulfillment([default], parameters, choose)
