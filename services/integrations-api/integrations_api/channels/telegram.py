"""Telegram's Bot API (https://core.telegram.org/bots/api) as a channel platform.

Calls reach `/v2/channels/:id` as updates, each authenticated by the secret token the
channel registered with `setWebhook` (header `X-Telegram-Bot-Api-Secret-Token`).
Parley reads `message` (its text) and `callback_query` (a button click) updates and
ignores the others. An answer is written as Bot API methods, one per fulfillment item
(docs/channels.md has the table).
"""

import functools
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

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
    WELCOME,
    Answer,
    Call,
    Credentials,
    Incoming,
    Outgoing,
    Profile,
    Reply,
    Request,
    read_json,
    shape_errors_as_value_error,
)
from shared.fulfillment import ButtonTemplate, Card, Image, QuickReplies, Text

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

    @property
    def shows(self) -> Shows[Any]:
        return SHOWS

    def render(
        self, credentials: Credentials, incoming: Incoming, answer: Answer
    ) -> list[Outgoing]:
        token = credentials["botToken"]
        chat = _chat_id(incoming.conversation)
        outgoing: list[Outgoing] = []
        if incoming.callback is not None:
            answered = {"callback_query_id": incoming.callback}
            outgoing.append(_method(token, "answerCallbackQuery", answered))
        return outgoing + calls_with_delays(answer, SHOWS, functools.partial(_to, token, chat))

    def text(self, credentials: Credentials, conversation: str, text: str) -> list[Call]:
        token, chat = credentials["botToken"], _chat_id(conversation)
        return [_to(token, chat, message) for message in _texts(text)]


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
    handle = user.get("username")
    profile = Profile(
        name=name,
        language=language if isinstance(language, str) else None,
        handle=handle if isinstance(handle, str) and handle else None,
    )
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


Message = tuple[str, dict[str, Any]]
"""A Bot API method and its fields, but for the chat."""


def _method(token: str, name: str, fields: Mapping[str, Any]) -> Call:
    return Call(path=f"/bot{token}/{name}", json=fields)


def _to(token: str, chat: int | str, message: Message) -> Call:
    name, fields = message
    return _method(token, name, {"chat_id": chat, **fields})


def _texts(text: str) -> list[Message]:
    return [_send_message(piece) for piece in chunks(text, TEXT_CHARACTERS)]


def _send_message(text: str, markup: Mapping[str, Any] | None = None) -> Message:
    fields: dict[str, Any] = {"text": text[:TEXT_CHARACTERS]}
    if markup is not None:
        fields["reply_markup"] = markup
    return "sendMessage", fields


def _send_photo(photo: str, caption: str, markup: Mapping[str, Any] | None) -> Message:
    fields: dict[str, Any] = {"photo": photo}
    if caption:
        fields["caption"] = caption[:CAPTION_CHARACTERS]
    if markup is not None:
        fields["reply_markup"] = markup
    return "sendPhoto", fields


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


def _reply_keyboard(replies: Sequence[str]) -> dict[str, Any]:
    return {
        "keyboard": [[{"text": reply}] for reply in replies],
        "one_time_keyboard": True,
        "resize_keyboard": True,
    }


def _quick_replies(item: QuickReplies) -> list[Message]:
    """A webhook's quick replies are buttons that may jump (goto): only an inline
    keyboard's callback carries that; a reply keyboard can only say its text."""
    if item.buttons:
        title, buttons = quick_reply_buttons(item)
        return [_send_message(title, _inline_keyboard(buttons))]
    if not item.replies:
        return []
    return [_send_message(item.title, _reply_keyboard(item.replies))]


def _card(item: Card) -> list[Message]:
    caption = "\n".join(p for p in (item.title, item.subtitle) if p)
    markup = _inline_keyboard(read_buttons(item.buttons))
    if item.image_url:
        return [_send_photo(item.image_url, caption, markup)]
    return [_send_message(caption, markup)]


def _button_template(item: ButtonTemplate) -> list[Message]:
    return [_send_message(item.title, _inline_keyboard(read_buttons(item.buttons)))]


def _photo(item: Image) -> list[Message]:
    return [_send_photo(item.image_url, "", None)]


def _text(item: Text) -> list[Message]:
    return _texts(item.message)


SHOWS: Shows[Message] = Shows(
    text=_text,
    quick_replies=_quick_replies,
    image=_photo,
    card=_card,
    button_template=_button_template,
    handoff=not_shown,
)
"""The Bot API methods that show each kind of item."""
