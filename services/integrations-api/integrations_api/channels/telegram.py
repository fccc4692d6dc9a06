"""Telegram's Bot API (https://core.telegram.org/bots/api) as a channel platform.

Calls reach `/v2/channels/:id` as updates, each authenticated by the secret token the
channel registered with `setWebhook` (header `X-Telegram-Bot-Api-Secret-Token`).
Parley reads `message` (its text) and `callback_query` (a button click) updates and
ignores the others. An answer is written as Bot API methods, one per fulfillment item
(docs/channels.md has the table).
"""

import functools
import hmac
from collections.abc import Mapping
from typing import Any

from integrations_api.channels.answers import (
    Button,
    calls_with_delays,
    chunks,
    fitted_value,
    quick_reply_buttons,
    read_buttons,
    read_click,
)
from integrations_api.channels.platform import (
    WELCOME,
    Call,
    Credentials,
    Fulfillment,
    Incoming,
    Outgoing,
    Profile,
    Reply,
    Request,
    read_json,
    shape_errors_as_value_error,
)

SECRET_HEADER = "x-telegram-bot-api-secret-token"
ALLOWED_UPDATES = ("message", "callback_query")
CALLBACK_DATA_BYTES = 64
"""Telegram's limit on a button's callback_data (1-64 bytes)."""
TEXT_CHARACTERS = 4096
CAPTION_CHARACTERS = 1024
"""Telegram refuses longer texts and photo captions: a longer text goes in several
messages, a caption (which cannot) is cut rather than lose the whole photo."""


class Telegram:
    type: str = "telegram"
    credential_names: tuple[str, ...] = ("botToken",)

    def authenticate(self, credentials: Credentials, request: Request, now: float) -> bool:
        sent = request.headers.get(SECRET_HEADER)
        secret = credentials["webhookSecret"]
        return sent is not None and hmac.compare_digest(sent.encode(), secret.encode())

    def challenge(self, credentials: Credentials, request: Request) -> Reply | None:
        return None  # Telegram verifies nothing: setWebhook is the registration

    def read(self, credentials: Credentials, body: bytes) -> list[Incoming]:
        with shape_errors_as_value_error():
            return _update(read_json(body))

    def render(
        self, credentials: Credentials, incoming: Incoming, fulfillment: Fulfillment
    ) -> list[Outgoing]:
        token = credentials["botToken"]
        chat = _chat_id(incoming.conversation)
        outgoing: list[Outgoing] = []
        if incoming.callback is not None:
            answered = {"callback_query_id": incoming.callback}
            outgoing.append(_method(token, "answerCallbackQuery", answered))
        return outgoing + calls_with_delays(fulfillment, functools.partial(_item, token, chat))

    def text(self, credentials: Credentials, conversation: str, text: str) -> list[Call]:
        return _texts(credentials["botToken"], _chat_id(conversation), text)


PLATFORM = Telegram()


def set_webhook(credentials: Credentials, url: str) -> Call:
    """The registration of a channel's inbound URL, with the secret Telegram then sends
    on every update and only the updates Parley reads."""
    fields = {
        "url": url,
        "secret_token": credentials["webhookSecret"],
        "allowed_updates": list(ALLOWED_UPDATES),
    }
    return _method(credentials["botToken"], "setWebhook", fields)


def _update(value: Any) -> list[Incoming]:
    update = _object(value, "update")
    update_id = update.get("update_id")
    if not isinstance(update_id, int) or isinstance(update_id, bool):
        raise ValueError("an update without update_id")
    if "message" in update:
        return _message(str(update_id), _object(update["message"], "message"))
    if "callback_query" in update:
        return _click(str(update_id), _object(update["callback_query"], "callback_query"))
    return []


def _object(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{name} is not an object")
    return value


def _sender(value: Any) -> tuple[str, Profile]:
    user = _object(value, "from")
    names = [user.get("first_name"), user.get("last_name")]
    name = " ".join(n for n in names if isinstance(n, str) and n) or None
    language = user.get("language_code")
    profile = Profile(name=name, language=language if isinstance(language, str) else None)
    return str(user["id"]), profile


def _message(update_id: str, message: dict[str, Any]) -> list[Incoming]:
    text = message.get("text")
    if not isinstance(text, str) or "from" not in message:
        return []  # a photo, a sticker, a channel post...: nothing to say to the bot
    user, profile = _sender(message["from"])
    chat = str(_object(message.get("chat"), "chat")["id"])
    if _is_start(text):
        return [Incoming(update_id, chat, user, trigger=WELCOME, profile=profile)]
    return [Incoming(update_id, chat, user, query=text, profile=profile)]


def _is_start(text: str) -> bool:
    """Telegram's Start button sends `/start`, with a deep link's payload after a space
    (`/start promo`), or `/start@BotName` in a group."""
    command = text.split(maxsplit=1)[0] if text.strip() else ""
    return command == "/start" or command.startswith("/start@")


def _click(update_id: str, callback_query: dict[str, Any]) -> list[Incoming]:
    """A click on an inline keyboard button: its callback data says or jumps; a click
    without data (a game's button) is only answered."""
    user, profile = _sender(callback_query.get("from"))
    message = callback_query.get("message")
    chat = str(_object(message, "message")["chat"]["id"]) if message else user
    data = callback_query.get("data")
    said, goto = read_click(data) if isinstance(data, str) else (None, None)
    callback = str(callback_query["id"])
    return [
        Incoming(update_id, chat, user, query=said, goto=goto, profile=profile, callback=callback)
    ]


def _chat_id(conversation: str) -> int | str:
    """Telegram's chat ids are integers; a channel's @username stays a string."""
    try:
        return int(conversation)
    except ValueError:
        return conversation


def _method(token: str, name: str, fields: Mapping[str, Any]) -> Call:
    return Call(path=f"/bot{token}/{name}", json=fields)


def _texts(token: str, chat: int | str, text: str) -> list[Call]:
    return [_send_message(token, chat, piece) for piece in chunks(text, TEXT_CHARACTERS)]


def _send_message(
    token: str, chat: int | str, text: str, markup: Mapping[str, Any] | None = None
) -> Call:
    fields: dict[str, Any] = {"chat_id": chat, "text": text[:TEXT_CHARACTERS]}
    if markup is not None:
        fields["reply_markup"] = markup
    return _method(token, "sendMessage", fields)


def _send_photo(
    token: str, chat: int | str, photo: str, caption: str, markup: Mapping[str, Any] | None
) -> Call:
    fields: dict[str, Any] = {"chat_id": chat, "photo": photo}
    if caption:
        fields["caption"] = caption[:CAPTION_CHARACTERS]
    if markup is not None:
        fields["reply_markup"] = markup
    return _method(token, "sendPhoto", fields)


def _inline_keyboard(buttons: list[Button]) -> dict[str, Any] | None:
    """One button a row; a link opens (url), a reply comes back as a callback, a phone
    button is left out (an inline keyboard has none: Telegram refuses a tel: url)."""
    rows = []
    for button in buttons:
        if button.kind == "link":
            rows.append([{"text": button.title, "url": button.target}])
        elif button.kind == "reply":
            data = fitted_value(button, CALLBACK_DATA_BYTES, unit="bytes")
            rows.append([{"text": button.title, "callback_data": data}])
    return {"inline_keyboard": rows} if rows else None


def _reply_keyboard(replies: list[str]) -> dict[str, Any]:
    return {
        "keyboard": [[{"text": reply}] for reply in replies],
        "one_time_keyboard": True,
        "resize_keyboard": True,
    }


def _item(token: str, chat: int | str, item: Mapping[str, Any]) -> list[Call]:
    """The Bot API calls that show one fulfillment item."""
    kind = item.get("type")
    if kind == "text":
        return _texts(token, chat, str(item["message"]))
    if kind == "image":
        return [_send_photo(token, chat, item["imageUrl"], "", None)]
    if kind == "quickReply" and item.get("buttons"):
        # a webhook's quick replies are buttons that may jump (goto): only an inline
        # keyboard's callback carries that; a reply keyboard can only say its text
        title, buttons = quick_reply_buttons(item)
        return [_send_message(token, chat, title, _inline_keyboard(buttons))]
    if kind == "quickReply":
        return [
            _send_message(token, chat, str(message["title"]), _reply_keyboard(replies))
            for message in item.get("messages", [])
            if (replies := message.get("replies"))
        ]
    if kind == "card":
        caption = "\n".join(p for p in (item.get("title"), item.get("subtitle")) if p)
        markup = _inline_keyboard(read_buttons(item.get("buttons", [])))
        if item.get("imageUrl"):
            return [_send_photo(token, chat, item["imageUrl"], caption, markup)]
        return [_send_message(token, chat, caption, markup)]
    if kind == "buttonTemplate":
        markup = _inline_keyboard(read_buttons(item.get("buttons", [])))
        return [_send_message(token, chat, str(item["title"]), markup)]
    return []  # handoff and anything newer: nothing to show
