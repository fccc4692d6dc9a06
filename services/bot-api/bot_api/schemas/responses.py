"""The response blocks an interaction stores (docs/api.md "Stored responses").

Where the interface's field tables and its concept rules differ, the concept rules hold:
cards and button templates have at most 3 buttons, a button's postback is optional
and defaults to its title, a card's subtitle and image are optional, quick replies
hold at most 20 characters, and a button template's text is up to 640 characters.

A block loads into its value of `bot_api.domain.responses` and dumps from it.
"""

from typing import Any

from marshmallow import Schema, fields, post_load, validate

from bot_api.domain.responses import (
    Block,
    Button,
    ButtonTemplate,
    Card,
    Handoff,
    Image,
    QuickReplies,
    TextChoice,
)
from bot_api.schemas.common import text, text_list
from shared.schema_fields import TypedUnion

MAX_BUTTONS = 3


class TypedSchema(Schema):
    type = fields.String(required=True)


class TextResponseSchema(TypedSchema):
    messages = text_list(20, 2048, min_items=1, min_length=1, required=True)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> TextChoice:
        return TextChoice(tuple(block["messages"]))


class QuickReplyResponseSchema(TypedSchema):
    title = text(80, min_length=1, required=True)
    replies = text_list(11, 20, min_items=1, min_length=1, required=True)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> QuickReplies:
        return QuickReplies(block["title"], tuple(block["replies"]))


class ImageResponseSchema(TypedSchema):
    imageUrl = text(2048, min_length=1, required=True, attribute="image_url")

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> Image:
        return Image(block["image_url"])


class ButtonSchema(Schema):
    title = text(20, min_length=1, required=True)
    postback = text(2048, load_default="")

    @post_load
    def to_value(self, button: dict[str, Any], **kwargs: Any) -> Button:
        return Button(button["title"], button["postback"] or button["title"])


def buttons(**kwargs: Any) -> fields.List[Any]:
    return fields.List(
        fields.Nested(ButtonSchema), validate=validate.Length(max=MAX_BUTTONS), **kwargs
    )


class CardResponseSchema(TypedSchema):
    title = text(80, min_length=1, required=True)
    subtitle = text(80, load_default="")
    imageUrl = text(2048, load_default="", attribute="image_url")
    buttons = buttons(load_default=list)

    @post_load
    def to_value(self, block: dict[str, Any], **kwargs: Any) -> Card:
        return Card(block["title"], block["subtitle"], block["image_url"], tuple(block["buttons"]))


class ButtonTemplateResponseSchema(TypedSchema):
    title = text(640, min_length=1, required=True)
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
