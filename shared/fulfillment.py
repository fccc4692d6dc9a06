"""The answer contract between bot-api and integrations-api: the items a turn answers
(SPEC's /query `result.fulfillment`) as typed values, and their one codec.

bot-api writes every item through `item_body`, so the /query result, a webhook's
payload and a channel's reply (shared/events.py `ChannelTurnReply.answer`) show the
same JSON; integrations-api reads the channel's reply back with `decode` and hands each
platform typed values (integrations_api/channels/answers.py `Shows`). The kinds'
names (`text`, `quickReply`, ...) are written here and nowhere else in the code.

`encode` wraps the items as `{"v": 1, "items": [...]}`; `decode` reads them strictly: an
unknown version, an unknown kind of item, a missing field or a value of another type is
one `UndecodableAnswer`, never an item guessed at. A field an item does not know is
ignored, as shared/events.py does.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

VERSION = 1


class UndecodableAnswer(ValueError):
    """An answer no version of this code can read."""


@dataclass(frozen=True)
class Button:
    title: str
    postback: str
    kind: str | None = None
    """A webhook button's `type` (postback, goto, url, webview, phone); None when the
    story's own."""
    height: str | None = None
    """A webview button's height."""


@dataclass(frozen=True)
class Text:
    message: str
    delay: int | None = None
    """Milliseconds to wait before the item (a webhook's answer may ask for it)."""


@dataclass(frozen=True)
class QuickReplies:
    title: str
    replies: tuple[str, ...]
    buttons: tuple[Button, ...] = ()
    """A webhook's quick replies keep their buttons (a goto button jumps)."""
    delay: int | None = None


@dataclass(frozen=True)
class Image:
    image_url: str
    delay: int | None = None


@dataclass(frozen=True)
class Card:
    title: str
    subtitle: str
    image_url: str
    buttons: tuple[Button, ...]
    delay: int | None = None


@dataclass(frozen=True)
class ButtonTemplate:
    title: str
    buttons: tuple[Button, ...]
    delay: int | None = None


@dataclass(frozen=True)
class Handoff:
    """A person takes the conversation (webhook connection `connection`)."""

    connection: str
    delay: int | None = None


Item = Text | QuickReplies | Image | Card | ButtonTemplate | Handoff


def item_body(item: Item) -> dict[str, Any]:
    """The item as /query answers it (docs/query.md), key for key."""
    body: dict[str, Any]
    match item:
        case Text():
            body = {"type": "text", "message": item.message}
        case QuickReplies():
            message = {"type": "quickReply", "title": item.title, "replies": list(item.replies)}
            body = {"type": "quickReply", "messages": [message]}
            if item.buttons:
                body["buttons"] = _buttons_body(item.buttons)
        case Image():
            body = {"type": "image", "imageUrl": item.image_url}
        case Card():
            body = {
                "type": "card",
                "title": item.title,
                "subtitle": item.subtitle,
                "imageUrl": item.image_url,
                "buttons": _buttons_body(item.buttons),
            }
        case ButtonTemplate():
            body = {
                "type": "buttonTemplate",
                "title": item.title,
                "buttons": _buttons_body(item.buttons),
            }
        case Handoff():
            body = {"type": "handoff", "connection": item.connection}
        case _:
            assert_never(item)
    if item.delay is not None:
        body["delay"] = item.delay
    return body


def _buttons_body(buttons: tuple[Button, ...]) -> list[dict[str, str]]:
    written = []
    for button in buttons:
        body = {"title": button.title, "postback": button.postback}
        if button.kind is not None:
            body["type"] = button.kind
        if button.height is not None:
            body["height"] = button.height
        written.append(body)
    return written


def encode(items: Sequence[Item]) -> dict[str, Any]:
    return {"v": VERSION, "items": [item_body(item) for item in items]}


def decode(value: Any) -> tuple[Item, ...]:
    """The items of an encoded answer, or UndecodableAnswer."""
    if not isinstance(value, dict) or value.get("v") != VERSION:
        version = value.get("v") if isinstance(value, dict) else value
        raise UndecodableAnswer(f"unknown version of an answer: {version!r:.80}")
    items = value.get("items")
    if not isinstance(items, list):
        raise UndecodableAnswer("an answer without its list of items")
    return tuple(item_of(item) for item in items)


def item_of(value: Any) -> Item:
    """One item as `item_body` writes it, or UndecodableAnswer."""
    item = _Fields(value, "an answer item")
    kind = item.value.get("type")
    read = _READERS.get(kind) if isinstance(kind, str) else None
    if read is None or not isinstance(kind, str):
        known = ", ".join(_READERS)
        raise UndecodableAnswer(f"unknown kind of answer item {kind!r:.80} (known: {known})")
    return read(_Fields(value, kind))


class _Fields:
    """Typed reads of one JSON object's fields; `where` names it in an error."""

    def __init__(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise UndecodableAnswer(f"{where} is not an object: {value!r:.80}")
        self.value: dict[str, Any] = value
        self.where = where

    def text(self, name: str) -> str:
        found = self.value.get(name)
        if not isinstance(found, str):
            raise UndecodableAnswer(f"{self.where}.{name}: {found!r:.80} is not a string")
        return found

    def optional_text(self, name: str) -> str | None:
        return None if self.value.get(name) is None else self.text(name)

    def delay(self) -> int | None:
        found = self.value.get("delay")
        if found is not None and (not isinstance(found, int) or isinstance(found, bool)):
            raise UndecodableAnswer(f"{self.where}.delay: {found!r:.80} is not a whole number")
        return found

    def objects(self, name: str, required: bool = True) -> list["_Fields"]:
        found = self.value.get(name, None if required else [])
        if not isinstance(found, list):
            raise UndecodableAnswer(f"{self.where}.{name}: {found!r:.80} is not a list")
        return [_Fields(element, f"{self.where}.{name}[{i}]") for i, element in enumerate(found)]

    def texts(self, name: str) -> tuple[str, ...]:
        found = self.value.get(name)
        if not isinstance(found, list) or not all(isinstance(e, str) for e in found):
            raise UndecodableAnswer(f"{self.where}.{name}: {found!r:.80} is not a list of strings")
        return tuple(found)

    def buttons(self, required: bool = True) -> tuple[Button, ...]:
        return tuple(
            Button(
                b.text("title"),
                b.text("postback"),
                b.optional_text("type"),
                b.optional_text("height"),
            )
            for b in self.objects("buttons", required)
        )


def _quick_replies(item: _Fields) -> QuickReplies:
    messages = item.objects("messages")
    if len(messages) != 1:
        raise UndecodableAnswer(f"quickReply.messages: {len(messages)} messages, not one")
    (message,) = messages
    replies = message.texts("replies")
    return QuickReplies(message.text("title"), replies, item.buttons(False), item.delay())


_READERS: dict[str, Callable[[_Fields], Item]] = {
    "text": lambda item: Text(item.text("message"), item.delay()),
    "quickReply": _quick_replies,
    "image": lambda item: Image(item.text("imageUrl"), item.delay()),
    "card": lambda item: Card(
        item.text("title"),
        item.text("subtitle"),
        item.text("imageUrl"),
        item.buttons(),
        item.delay(),
    ),
    "buttonTemplate": lambda item: ButtonTemplate(item.text("title"), item.buttons(), item.delay()),
    "handoff": lambda item: Handoff(item.text("connection"), item.delay()),
}
