"""The response blocks an interaction stores (docs/api.md "Stored responses").

Where the interface's field tables and its concept rules differ, the concept rules hold:
cards and button templates have at most 3 buttons, a button's postback is optional
and defaults to its title, a card's subtitle and image are optional, quick replies
hold at most 20 characters, and a button template's text is up to 640 characters.

What the user is shown may not be blank (a platform refuses a blank text), and an
address (an image, a postback starting with http:// or https://) must be an absolute
http(s) URL with a host and no blank; a `{{parameter}}` may stand for part of it, or
for all of it (then it is checked as it is sent: docs/query.md "Fulfillment items").

A block loads into its value of `bot_api.domain.responses` and dumps from it.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from marshmallow import Schema, ValidationError, fields, post_load, validate

from bot_api.common.schemas import text
from bot_api.domain.responses import (
    Block,
    Button,
    ButtonTemplate,
    Card,
    Handoff,
    Image,
    QuickReplies,
    TextChoice,
    is_web_address_template,
    looks_like_web_address,
)
from shared.schema_fields import TypedUnion

MAX_BUTTONS = 3
MAX_REPLIES = 11


_READING_FROZEN = ContextVar("reading_frozen", default=False)


@contextmanager
def reading_frozen() -> Iterator[None]:
    """Blocks read back as they were frozen (a version's document), perhaps before the
    blank and address checks below existed: what they refuse in a write is kept here, so
    an old published version still compiles, and left out as it is sent instead."""
    token = _READING_FROZEN.set(True)
    try:
        yield
    finally:
        _READING_FROZEN.reset(token)


def not_blank(value: str) -> None:
    if _READING_FROZEN.get():
        return
    if not value.strip():
        raise ValidationError("Must not be blank.")


def web_address(value: str) -> None:
    if _READING_FROZEN.get():
        return
    if value and not is_web_address_template(value):
        raise ValidationError(
            "Not a web address: an absolute http(s) URL with a host and no blank is needed."
        )


def link_postback(value: str) -> None:
    """A postback is a link when it starts with http(s)://, and must then be a whole one."""
    if looks_like_web_address(value):
        web_address(value)


def shown(max_length: int, **kwargs: Any) -> fields.String:
    """A text the user is shown: 1 to `max_length` characters, not all blank."""
    return fields.String(validate=[validate.Length(min=1, max=max_length), not_blank], **kwargs)


def shown_list(max_items: int, max_length: int, **kwargs: Any) -> fields.List[str]:
    return fields.List(shown(max_length), validate=validate.Length(min=1, max=max_items), **kwargs)


def replies(min_items: int, **kwargs: Any) -> fields.List[str]:
    """Quick replies: the texts a click sends, up to 11 of 20 characters (the concept rule),
    in a quickReply block and with a parameter's prompt alike."""
    return fields.List(
        shown(20), validate=validate.Length(min=min_items, max=MAX_REPLIES), **kwargs
    )


def image_address(min_length: int, **kwargs: Any) -> fields.String:
    return fields.String(
        validate=[validate.Length(min=min_length, max=2048), web_address],
        attribute="image_url",
        **kwargs,
    )


class TypedSchema(Schema):
    type = fields.String(required=True)


class TextResponseSchema(TypedSchema):
    messages = shown_list(20, 2048, required=True)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> TextChoice:
        return TextChoice(tuple(block["messages"]))


class QuickReplyResponseSchema(TypedSchema):
    title = shown(80, required=True)
    replies = replies(1, required=True)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> QuickReplies:
        return QuickReplies(block["title"], tuple(block["replies"]))


class ImageResponseSchema(TypedSchema):
    imageUrl = image_address(1, required=True)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> Image:
        return Image(block["image_url"])


class ButtonSchema(Schema):
    title = shown(20, required=True)
    postback = fields.String(validate=[validate.Length(max=2048), link_postback], load_default="")

    @post_load
    def to_value(self, button: dict[str, Any], **kwargs: Any) -> Button:
        return Button(button["title"], button["postback"] or button["title"])


def buttons(**kwargs: Any) -> fields.List[Any]:
    return fields.List(
        fields.Nested(ButtonSchema), validate=validate.Length(max=MAX_BUTTONS), **kwargs
    )


class CardResponseSchema(TypedSchema):
    title = shown(80, required=True)
    subtitle = text(80, load_default="")
    imageUrl = image_address(0, load_default="")
    buttons = buttons(load_default=list)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> Card:
        return Card(block["title"], block["subtitle"], block["image_url"], tuple(block["buttons"]))


class ButtonTemplateResponseSchema(TypedSchema):
    title = shown(640, required=True)
    buttons = buttons(required=True)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> ButtonTemplate:
        return ButtonTemplate(block["title"], tuple(block["buttons"]))


class HandoffResponseSchema(TypedSchema):
    connection = fields.String(
        required=True,
        validate=validate.Regexp(r"^[0-9a-f]{24}$", error="Must be a webhook connection's id."),
        metadata={
            "description": "The id of the story's webhook connection the user's "
            "messages go to while a person has the conversation"
        },
    )

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> Handoff:
        return Handoff(block["connection"])


STORED_RESPONSES = {
    "text": TextResponseSchema,
    "quickReply": QuickReplyResponseSchema,
    "image": ImageResponseSchema,
    "card": CardResponseSchema,
    "buttonTemplate": ButtonTemplateResponseSchema,
    "handoff": HandoffResponseSchema,
}


BLOCK_TYPES: dict[type[Block], str] = {
    TextChoice: "text",
    QuickReplies: "quickReply",
    Image: "image",
    Card: "card",
    ButtonTemplate: "buttonTemplate",
    Handoff: "handoff",
}
"""The `type` each block value is written with."""


class StoredResponse(TypedUnion):
    """A stored block: loaded by its `type` into a value, dumped from the value under
    the `type` its class is written with."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        if value is None:
            return None
        kind = BLOCK_TYPES[type(value)]
        return {"type": kind, **self.choices[kind].dump(value)}


def stored_response(**kwargs: Any) -> StoredResponse:
    return StoredResponse(STORED_RESPONSES, **kwargs)
