"""What a backend may answer to a webhook call (docs/webhooks.md): `responses` and
`attributes`, every response and button checked against its table of limits, then read
as the same response blocks an interaction stores.

An address SPEC's tables let through that is no web address (an image, a card's image,
a `url` or `webview` button's value) does not fail the delivery: that image or button
is left out, counted (`parley_webhook_addresses_dropped_total`) and logged at debug
level, and every other item is kept."""

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from bot_api.domain.responses import (
    Block,
    Button,
    ButtonTemplate,
    Card,
    Image,
    QuickReplies,
    TextChoice,
    is_link_template,
    is_web_address_template,
)
from bot_api.metrics import WEBHOOK_ADDRESSES_DROPPED
from bot_api.query.webhooks.failures import DeliveryFailed
from shared import json_body
from shared.errors import BadRequest, first_error_path
from shared.schema_fields import TypedUnion

log = logging.getLogger(__name__)

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.I)
PHONE = re.compile(r"^\+\d{2,15}$")


def _text(low: int, high: int, **kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=low, max=high), **kwargs)


def uuid4(value: str) -> None:
    if not UUID4.fullmatch(value):
        raise ValidationError("not a UUID v4")


def phone(value: str) -> None:
    if not PHONE.fullmatch(value):
        raise ValidationError("not a phone number (+ and at least two digits)")


class PostbackButton(Schema):
    type = fields.String(required=True)
    title = _text(1, 20, required=True)
    value = _text(1, 2000, required=True)


class GotoButton(Schema):
    type = fields.String(required=True)
    title = _text(1, 20, required=True)
    value = fields.String(required=True, validate=[validate.Length(equal=36), uuid4])


class UrlButton(Schema):
    type = fields.String(required=True)
    title = _text(0, 20, required=True)
    value = _text(0, 2048, required=True)


class WebviewButton(Schema):
    type = fields.String(required=True)
    title = _text(1, 20, required=True)
    value = _text(1, 2048, required=True)
    height = fields.String(
        load_default="compact", validate=validate.OneOf(["full", "tall", "compact"])
    )


class PhoneButton(Schema):
    type = fields.String(required=True)
    title = _text(1, 20, required=True)
    value = fields.String(required=True, validate=[validate.Length(min=3, max=16), phone])


QUICK_REPLY_BUTTONS = {"postback": PostbackButton, "goto": GotoButton}
BUTTONS = {**QUICK_REPLY_BUTTONS, "url": UrlButton, "webview": WebviewButton, "phone": PhoneButton}


def _buttons(kinds: dict[str, type[Schema]], most: int) -> fields.List[Any]:
    return fields.List(TypedUnion(kinds), required=True, validate=validate.Length(min=1, max=most))


class Delayed(Schema):
    type = fields.String(required=True)
    delay = fields.Integer(strict=True, load_default=1000, validate=validate.Range(100, 10000))


class TextAnswer(Delayed):
    """`message`, or the interaction-level form `messages` (one is chosen)."""

    message = _text(1, 1024)
    messages = fields.List(_text(1, 1024), validate=validate.Length(min=1, max=20))

    @validates_schema
    def one_form(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("message" in data) == ("messages" in data):
            raise ValidationError("send either message or messages", field_name="message")


class RandomTextAnswer(Delayed):
    messages = fields.List(_text(1, 1024), required=True, validate=validate.Length(min=1, max=20))


class ImageAnswer(Delayed):
    imageUrl = _text(1, 2048, required=True)


class QuickRepliesAnswer(Delayed):
    title = _text(1, 640, required=True)
    buttons = _buttons(QUICK_REPLY_BUTTONS, 13)


class CardElement(Schema):
    title = _text(1, 80, required=True)
    subtitle = _text(1, 80, required=True)
    imageUrl = _text(1, 2048, required=True)
    buttons = _buttons(BUTTONS, 5)


class CardsAnswer(Delayed):
    elements = fields.List(
        fields.Nested(CardElement), required=True, validate=validate.Length(min=1)
    )


class ButtonsAnswer(Delayed):
    title = _text(1, 640, required=True)
    buttons = _buttons(BUTTONS, 5)


ANSWER_RESPONSES = {
    "text": TextAnswer,
    "randomText": RandomTextAnswer,
    "image": ImageAnswer,
    "quickReplies": QuickRepliesAnswer,
    "cards": CardsAnswer,
    "buttons": ButtonsAnswer,
}


class WebhookAnswerSchema(Schema):
    class Meta:
        unknown = "exclude"

    responses = fields.List(TypedUnion(ANSWER_RESPONSES), load_default=list)
    attributes = fields.Dict(keys=fields.String(), values=fields.String(), load_default=dict)


ANSWER = WebhookAnswerSchema()


@dataclass(frozen=True)
class WebhookAnswer:
    responses: tuple[Block, ...]
    attributes: Mapping[str, str]


def read_answer(raw: bytes) -> WebhookAnswer:
    """The answer a backend sent, or DeliveryFailed saying what is wrong with it. Its
    JSON is held to the shape of every JSON body (`shared.json_body`): nested 1,000
    deep (2 KB), the decoder's RecursionError escaped the delivery."""
    try:
        answer = json_body.parse(raw) if raw.strip() else {}
    except json_body.BodyRefused as refused:
        raise DeliveryFailed(f"answer refused: {refused.details}") from None
    except BadRequest:
        raise DeliveryFailed("answer is not JSON") from None
    try:
        loaded = ANSWER.load(answer)
    except ValidationError as error:
        messages = (
            error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
        )
        path, message = first_error_path(messages)
        raise DeliveryFailed(f"{path}: {message}") from None
    blocks = tuple(
        block
        for number, response in enumerate(loaded["responses"])
        for block in _blocks(response, f"responses[{number}]")
    )
    return WebhookAnswer(blocks, loaded["attributes"])


def _address(
    url: str, where: str, what: str, opens: Callable[[str], bool] = is_web_address_template
) -> str:
    """`url`, or "" (the item left out, counted and logged) when `opens` says it is no
    address (a web address; for a button, a mail link too)."""
    if opens(url):
        return url
    WEBHOOK_ADDRESSES_DROPPED.labels(what).inc()
    log.debug("webhook answer: %s is no web address (%r): the %s is left out", where, url, what)
    return ""


def _read_buttons(buttons: Iterable[Mapping[str, Any]], where: str) -> tuple[Button, ...]:
    read = []
    for number, b in enumerate(buttons):
        link = b["type"] in ("url", "webview")
        value = f"{where}.buttons[{number}].value"
        if link and not _address(b["value"], value, "button", is_link_template):
            continue
        read.append(Button(b["title"], b["value"], b["type"], b.get("height")))
    return tuple(read)


def _blocks(response: Mapping[str, Any], where: str) -> list[Block]:
    delay = response["delay"]
    kind = response["type"]
    if kind in ("text", "randomText"):
        messages = (response["message"],) if "message" in response else response["messages"]
        return [TextChoice(tuple(messages), delay)]
    if kind == "image":
        url = _address(response["imageUrl"], f"{where}.imageUrl", "image")
        return [Image(url, delay)] if url else []
    if kind == "quickReplies":
        buttons = _read_buttons(response["buttons"], where)
        return [QuickReplies(response["title"], tuple(b.title for b in buttons), buttons, delay)]
    if kind == "cards":
        return [
            Card(
                e["title"],
                e["subtitle"],
                _address(e["imageUrl"], f"{where}.elements[{number}].imageUrl", "card image"),
                _read_buttons(e["buttons"], f"{where}.elements[{number}]"),
                delay,
            )
            for number, e in enumerate(response["elements"])
        ]
    return [ButtonTemplate(response["title"], _read_buttons(response["buttons"], where), delay)]
