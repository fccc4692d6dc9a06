"""Slack (docs/channels.md "Slack"): the Events API's `message` events and the clicks
on Parley's buttons (interactivity `block_actions`) in; `chat.postMessage` out.

Slack waits 3 seconds for the 200 of an event and then sends it again, up to three
times, with `X-Slack-Retry-Num` and the same `event_id`: the channel acknowledges at
once and answers an `event_id` once (`Incoming.delivery_id`).
"""

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

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
    read_json,
    shape_errors_as_value_error,
)
from shared.fulfillment import ButtonTemplate, Card, Image, QuickReplies

POST_MESSAGE = "/api/chat.postMessage"
SIGNATURE_WINDOW_SECONDS = 300
"""Slack's documented replay window: a request whose timestamp is more than five
minutes from now is refused, even with a valid signature."""

TEXT_LIMIT = 4000
"""Characters of a message's text sent at once, as escaped: Slack advises at most
4,000 (and truncates at 40,000); a longer text goes in several messages, cut between
words."""
SECTION_TEXT_LIMIT = 3000
BUTTON_TEXT_LIMIT = 75
BUTTON_VALUE_LIMIT = 2000
URL_LIMIT = 3000
"""Block Kit's documented limits, in characters: a section's text, a button's text,
value and url, an image's image_url. Slack refuses a message over any of them: an
image or a link with a longer address is left out (answers.sendable)."""
ALT_TEXT = "image"
"""An image block's required `alt_text`: a fulfillment image has no description."""


class Slack:
    type: str = "slack"
    credential_names: tuple[str, ...] = ("botToken", "signingSecret")

    def authenticate(self, credentials: Credentials, request: Request, now: float) -> bool:
        """Slack's v0 request signature: HMAC-SHA256 with the signing secret of
        `v0:<X-Slack-Request-Timestamp>:<raw body>`, in `X-Slack-Signature` as
        `v0=<hex>`, from a timestamp within five minutes of now."""
        timestamp = request.headers.get("x-slack-request-timestamp", "")
        signature = request.headers.get("x-slack-signature", "")
        if not timestamp.isdigit() or abs(now - int(timestamp)) > SIGNATURE_WINDOW_SECONDS:
            return False
        signed = b"v0:" + timestamp.encode() + b":" + request.body
        key = credentials["signingSecret"].encode()
        expected = "v0=" + hmac.new(key, signed, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected.encode(), signature.encode())

    def challenge(self, credentials: Credentials, request: Request) -> Reply | None:
        """Slack's `url_verification`, sent when the Request URL is saved in the app's
        settings: answered with its `challenge`."""
        if request.method != "POST" or not request.body.startswith(b"{"):
            return None
        try:
            body = read_json(request.body)
        except ValueError:
            return None
        if isinstance(body, dict) and body.get("type") == "url_verification":
            return Reply(200, str(body.get("challenge", "")))
        return None

    def read(self, credentials: Credentials, body: bytes) -> list[Incoming]:
        """An Events API call (JSON) or an interactivity call (form-encoded
        `payload=<JSON>`)."""
        with shape_errors_as_value_error():
            if body.startswith(b"payload="):
                [payload] = parse_qs(body.decode())["payload"]
                return _read_interaction(_object(payload))
            return _read_event(_object(body))

    @property
    def shows(self) -> Shows[Any]:
        return SHOWS

    def render(
        self, credentials: Credentials, incoming: Incoming, answer: Answer
    ) -> list[Outgoing]:
        def call(message: Mapping[str, Any]) -> Call:
            return _post(credentials, incoming.conversation, message)

        return calls_with_delays(answer, SHOWS, call, URL_LIMIT)

    def text(self, credentials: Credentials, conversation: str, text: str) -> list[Call]:
        return [_post(credentials, conversation, message) for message in _texts(text)]


PLATFORM = Slack()


def _object(text: str | bytes) -> dict[str, Any]:
    value = read_json(text)
    if not isinstance(value, dict):
        raise ValueError("a Slack call is a JSON object")
    return value


def _read_event(body: dict[str, Any]) -> list[Incoming]:
    """A user's plain message; Parley's own messages (`bot_id`), edits, deletions,
    joins and every other subtype are no message to answer."""
    if body.get("type") != "event_callback":
        return []
    event = body["event"]
    if event.get("type") != "message" or "subtype" in event or "bot_id" in event:
        return []
    text = _unescaped(str(event.get("text", "")))
    if not text.strip():
        return []
    return [
        Incoming(
            delivery_id=str(body["event_id"]),
            conversation=str(event["channel"]),
            user=str(event["user"]),
            query=text,
        )
    ]


def _read_interaction(payload: dict[str, Any]) -> list[Incoming]:
    """A click on a Parley button (its value `q:`/`g:`). A link button is opened by
    Slack itself and reported without a value: nothing to answer. Slack does not
    send an interaction again, and gives it no event id: its `trigger_id` is unique."""
    if payload.get("type") != "block_actions" or "channel" not in payload:
        return []  # a click outside a conversation (App Home, a modal)
    clicked = [action for action in payload["actions"] if action.get("value")]
    if not clicked:
        return []
    query, goto = read_click(str(clicked[0]["value"]))
    return [
        Incoming(
            delivery_id="click:" + str(payload["trigger_id"]),
            conversation=str(payload["channel"]["id"]),
            user=str(payload["user"]["id"]),
            query=query,
            goto=goto,
        )
    ]


def _unescaped(text: str) -> str:
    """Slack escapes `&`, `<` and `>` in a message's text."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _escaped(text: str) -> str:
    """Slack reads `&`, `<` and `>` in a message's text and a mrkdwn text as its
    control characters (`<!channel>` notifies everyone in it): every text Parley did
    not write as markup is escaped, its own `*bold*` title only around it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escaped_length(text: str) -> int:
    return len(_escaped(text))


def _fitted(text: str, limit: int) -> str:
    """`text` escaped, its first words within `limit` characters as sent."""
    pieces = chunks(text, limit, _escaped_length)
    return _escaped(pieces[0]) if pieces else ""


def _texts(text: str) -> list[dict[str, Any]]:
    return [{"text": _escaped(piece)} for piece in chunks(text, TEXT_LIMIT, _escaped_length)]


def _quick_replies(item: QuickReplies) -> list[dict[str, Any]]:
    title, buttons = quick_reply_buttons(item)
    return [_with_buttons(title, _section(_fitted(title, SECTION_TEXT_LIMIT)), buttons)]


def _button_template(item: ButtonTemplate) -> list[dict[str, Any]]:
    section = _section(_fitted(item.title, SECTION_TEXT_LIMIT))
    return [_with_buttons(item.title, section, read_buttons(item.buttons))]


def _picture(item: Image) -> list[dict[str, Any]]:
    return [{"text": _escaped(item.image_url), "blocks": [_image(item.image_url)]}]


def _card(item: Card) -> list[dict[str, Any]]:
    """The title in bold (the markup around it is Parley's), the subtitle below."""
    title, subtitle = item.title, item.subtitle
    bold = f"*{_fitted(title, SECTION_TEXT_LIMIT // 2)}*"
    below = _fitted(subtitle, SECTION_TEXT_LIMIT - len(bold) - 1) if subtitle else ""
    section = _section(bold + (f"\n{below}" if below else ""))
    if item.image_url:
        section["accessory"] = _image(item.image_url)
    return [_with_buttons(title, section, read_buttons(item.buttons))]


def _section(mrkdwn: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": mrkdwn}}


def _image(url: str) -> dict[str, Any]:
    """An image block, or a section's image accessory: both have this shape."""
    return {"type": "image", "image_url": url, "alt_text": ALT_TEXT}


def _with_buttons(text: str, section: dict[str, Any], buttons: list[Button]) -> dict[str, Any]:
    """A section and, below it, an actions block of the buttons Slack can show (a
    phone button has no Slack form: left out)."""
    elements = [
        _button(index, button)
        for index, button in enumerate(buttons)
        if button.kind in ("reply", "link")
    ]
    blocks = [section]
    if elements:
        blocks.append({"type": "actions", "elements": elements})
    return {"text": _fitted(text, TEXT_LIMIT), "blocks": blocks}


def _button(index: int, button: Button) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "button",
        "text": {"type": "plain_text", "text": button.title[:BUTTON_TEXT_LIMIT], "emoji": True},
        "action_id": f"parley-{index}",
    }
    if button.kind == "link":
        element["url"] = button.target
    else:
        element["value"] = fitted_value(button, BUTTON_VALUE_LIMIT)
    return element


SHOWS: Shows[dict[str, Any]] = Shows(
    text=lambda item: _texts(item.message),
    quick_replies=_quick_replies,
    image=_picture,
    card=_card,
    button_template=_button_template,
    handoff=not_shown,
)
"""The chat.postMessage bodies (without the channel) that show each kind of item;
`text` is what notifications and clients without blocks show."""


def _post(credentials: Credentials, channel: str, message: Mapping[str, Any]) -> Call:
    return Call(
        POST_MESSAGE,
        {"channel": channel, **message},
        headers={"Authorization": f"Bearer {credentials['botToken']}"},
    )
