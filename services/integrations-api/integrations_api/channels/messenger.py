"""Facebook Messenger (docs/channels.md "Messenger"): a Page's `messages` and
`messaging_postbacks` webhook events in, the Send API out.

Meta sends an event again while the 200 is missing (for up to a day); each carries
its message's `mid`, which the channel answers once.
"""

from collections.abc import Mapping
from typing import Any

from integrations_api.channels import meta
from integrations_api.channels.answers import (
    Button,
    Shows,
    calls_with_delays,
    chunks,
    fitted_value,
    not_shown,
    quick_reply_buttons,
    read_buttons,
    read_click,
)
from integrations_api.channels.platform import (
    Answer,
    Call,
    Credentials,
    Incoming,
    Outgoing,
    Reply,
    Request,
    Skipped,
    shape_errors_as_value_error,
)
from shared.fulfillment import ButtonTemplate, Card, Image, QuickReplies, Text

SEND_PATH = "/me/messages"
TEXT_LIMIT = 2000
"""Characters of a message's text; a longer answer goes in several messages."""
QUICK_REPLIES_LIMIT = 13
QUICK_REPLY_TITLE_LIMIT = 20
PAYLOAD_LIMIT = 1000
BUTTON_TITLE_LIMIT = 20
TEMPLATE_BUTTONS_LIMIT = 3
BUTTON_TEMPLATE_TEXT_LIMIT = 640
ELEMENT_TEXT_LIMIT = 80
"""The Send API's documented limits (characters, or items): quick replies, their
titles and payloads, a template's buttons, a button template's text and a generic
template element's title and subtitle. Graph refuses a message over any of them."""


class Messenger:
    type: str = "messenger"
    credential_names: tuple[str, ...] = ("pageAccessToken", "appSecret", "verifyToken")

    def authenticate(self, credentials: Credentials, request: Request, now: float) -> bool:
        return meta.authenticate(credentials, request)

    def challenge(self, credentials: Credentials, request: Request) -> Reply | None:
        return meta.challenge(credentials, request)

    def read(self, credentials: Credentials, body: bytes) -> meta.Read:
        """Text messages, quick-reply taps and postbacks (button clicks); echoes of
        the Page's own messages, attachments, reads and deliveries are left."""
        with shape_errors_as_value_error():
            entries = meta.entries(body, "page")
        return meta.each_read(
            entries, lambda entry: meta.each_read(entry.get("messaging", []), _read_event)
        )

    @property
    def shows(self) -> Shows[Any]:
        return SHOWS

    def render(
        self, credentials: Credentials, incoming: Incoming, answer: Answer
    ) -> list[Outgoing]:
        def call(message: Mapping[str, Any]) -> Call:
            return _send(credentials, incoming.conversation, message)

        return calls_with_delays(answer, SHOWS, call, meta.URL_LIMIT)

    def text(self, credentials: Credentials, conversation: str, text: str) -> list[Call]:
        pieces = chunks(text, TEXT_LIMIT)
        return [_send(credentials, conversation, {"text": piece}) for piece in pieces]


PLATFORM = Messenger()


def _read_event(event: Mapping[str, Any]) -> meta.Read:
    """A message or a postback of a person with a Page-scoped id. A guest of a plugin
    (`sender.user_ref`, no PSID) and a policy-enforcement event (the Page's app was
    warned or blocked) are skipped and counted; a postback without `mid` is told from
    its redelivery by its sender and timestamp."""
    if "policy-enforcement" in event:
        return [Skipped("policy_enforcement")]
    if "postback" not in event and "message" not in event:
        return []  # reads, deliveries, reactions...
    if "id" not in event["sender"]:
        return [Skipped("no_psid")]
    psid = str(event["sender"]["id"])
    if "postback" in event:
        postback = event["postback"]
        value = str(postback.get("payload") or postback.get("title") or "")
        if not value:
            return [Skipped("unreadable")]
        query, goto = read_click(value)
        delivery = postback.get("mid") or f"postback:{psid}:{event['timestamp']}"
        return [Incoming(str(delivery), psid, psid, query=query, goto=goto)]
    message = event["message"]
    if message.get("is_echo"):
        return []
    if "quick_reply" in message:
        query, goto = read_click(str(message["quick_reply"]["payload"]))
        return [Incoming(str(message["mid"]), psid, psid, query=query, goto=goto)]
    text = str(message.get("text", ""))
    if not text.strip():
        return []
    return [Incoming(str(message["mid"]), psid, psid, query=text)]


def _texts(item: Text) -> list[dict[str, Any]]:
    return [{"text": piece} for piece in chunks(item.message, TEXT_LIMIT)]


def _image(item: Image) -> list[dict[str, Any]]:
    image = {"url": item.image_url, "is_reusable": True}
    return [{"attachment": {"type": "image", "payload": image}}]


def _quick_replies(item: QuickReplies) -> list[dict[str, Any]]:
    """A text with up to 13 quick replies; a quick reply can only say something, so
    a link or phone button (a webhook's) is left out."""
    title, buttons = quick_reply_buttons(item)
    replies = [
        {
            "content_type": "text",
            "title": button.title[:QUICK_REPLY_TITLE_LIMIT],
            "payload": fitted_value(button, PAYLOAD_LIMIT),
        }
        for button in buttons
        if button.kind == "reply"
    ][:QUICK_REPLIES_LIMIT]
    message: dict[str, Any] = {"text": title[:TEXT_LIMIT]}
    if replies:
        message["quick_replies"] = replies
    return [message]


def _button_template(item: ButtonTemplate) -> list[dict[str, Any]]:
    """A button template needs one to three buttons: with none left, its text."""
    buttons = [_button(button) for button in read_buttons(item.buttons)]
    if not buttons:
        return [{"text": item.title[:TEXT_LIMIT]}]
    payload = {
        "template_type": "button",
        "text": item.title[:BUTTON_TEMPLATE_TEXT_LIMIT],
        "buttons": buttons[:TEMPLATE_BUTTONS_LIMIT],
    }
    return [{"attachment": {"type": "template", "payload": payload}}]


def _generic_template(card: Card) -> list[dict[str, Any]]:
    """A generic template's element needs something besides its title (a subtitle, an
    image or a button): a card of only a title is that text."""
    if not (card.subtitle or card.image_url or card.buttons):
        return [{"text": card.title[:TEXT_LIMIT]}]
    element: dict[str, Any] = {"title": card.title[:ELEMENT_TEXT_LIMIT]}
    if card.subtitle:
        element["subtitle"] = card.subtitle[:ELEMENT_TEXT_LIMIT]
    if card.image_url:
        element["image_url"] = card.image_url
    buttons = [_button(button) for button in read_buttons(card.buttons)]
    if buttons:
        element["buttons"] = buttons[:TEMPLATE_BUTTONS_LIMIT]
    payload = {"template_type": "generic", "elements": [element]}
    return [{"attachment": {"type": "template", "payload": payload}}]


SHOWS: Shows[dict[str, Any]] = Shows(
    text=_texts,
    quick_replies=_quick_replies,
    image=_image,
    card=_generic_template,
    button_template=_button_template,
    handoff=not_shown,
)
"""The Send API `message` objects that show each kind of item."""


def _button(button: Button) -> dict[str, Any]:
    title = button.title[:BUTTON_TITLE_LIMIT]
    match button.kind:
        case "link":
            return {"type": "web_url", "title": title, "url": button.target}
        case "phone":
            return {"type": "phone_number", "title": title, "payload": button.target}
    return {"type": "postback", "title": title, "payload": fitted_value(button, PAYLOAD_LIMIT)}


def _send(credentials: Credentials, psid: str, message: Mapping[str, Any]) -> Call:
    """A Send API call answering the user (`RESPONSE`: within the 24 hours after
    their last message, which a channel's answers always are)."""
    body = {"recipient": {"id": psid}, "messaging_type": "RESPONSE", "message": message}
    return meta.graph_call(SEND_PATH, credentials["pageAccessToken"], body)
