"""The response blocks an interaction stores (docs/api.md "Stored responses").

Where the interface's field tables and its concept rules differ, the concept rules hold:
cards and button templates have at most 3 buttons, a button's postback is optional
and defaults to its title, a card's subtitle and image are optional, quick replies
hold at most 20 characters, and a button template's text is up to 640 characters.
"""

from typing import Any

from marshmallow import Schema, fields, post_load, validate

from bot_api.schemas.common import text, text_list
from shared.schema_fields import TypedUnion

MAX_BUTTONS = 3


class TypedSchema(Schema):
    type = fields.String(required=True)


class TextResponseSchema(TypedSchema):
    messages = text_list(20, 2048, min_items=1, min_length=1, required=True)


class QuickReplyResponseSchema(TypedSchema):
    title = text(80, min_length=1, required=True)
    replies = text_list(11, 20, min_items=1, min_length=1, required=True)


class ImageResponseSchema(TypedSchema):
    imageUrl = text(2048, min_length=1, required=True)


class ButtonSchema(Schema):
    title = text(20, min_length=1, required=True)
    postback = text(2048, load_default="")

    @post_load
    def default_postback(self, button: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {**button, "postback": button["postback"] or button["title"]}


def buttons(**kwargs: Any) -> fields.List[Any]:
    return fields.List(
        fields.Nested(ButtonSchema), validate=validate.Length(max=MAX_BUTTONS), **kwargs
    )


class CardResponseSchema(TypedSchema):
    title = text(80, min_length=1, required=True)
    subtitle = text(80, load_default="")
    imageUrl = text(2048, load_default="")
    buttons = buttons(load_default=list)


class ButtonTemplateResponseSchema(TypedSchema):
    title = text(640, min_length=1, required=True)
    buttons = buttons(required=True)


STORED_RESPONSES = {
    "text": TextResponseSchema,
    "quickReply": QuickReplyResponseSchema,
    "image": ImageResponseSchema,
    "card": CardResponseSchema,
    "buttonTemplate": ButtonTemplateResponseSchema,
}


def stored_response(**kwargs: Any) -> TypedUnion:
    return TypedUnion(STORED_RESPONSES, **kwargs)
