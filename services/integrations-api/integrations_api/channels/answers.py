"""What every platform does alike with an answer: what a button does on a channel and
how a click on it comes back, a text too long for one message, an item's delay, and
what is left out before a platform sees it (`sendable`).

A fulfillment button (docs/query.md) either says something (its postback is the
query), jumps to an interaction (`type: goto`, its postback the interaction id), opens
a link (`type: url` or `webview`, or a postback that is an http(s) address) or calls a
number (`type: phone`): the same reading as the console's test chat
(`bot_api/console/static/fulfillment.js`).

A platform hands back, with a click, the value the button was sent with (Slack's
`value`, Meta's `payload`, WhatsApp's reply id). Parley writes it `q:<query>` or
`g:<interaction id>`, so a click is read without any state kept between the answer and
the click.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from integrations_api.channels.platform import Call, Fulfillment, Outgoing, Pause, Skipped

QUERY_PREFIX = "q:"
GOTO_PREFIX = "g:"
WEB_ADDRESS = re.compile(r"^https?://", re.IGNORECASE)
PHONE_NUMBER = re.compile(r"^\+?[0-9][0-9 ().-]{1,30}$")
NOT_IN_AN_ADDRESS = re.compile(r"[\s\x00-\x1f\x7f]")
WHITESPACE = re.compile(r"\s")
PLACEHOLDER = "…"
"""The text of a message that must have one (Telegram refuses a blank text, Slack an
empty section, Meta an empty template text) when its own is blank but its buttons
are not."""


@dataclass(frozen=True)
class Button:
    """A fulfillment button read for a channel.

    `kind`: `reply` says or jumps (its click value in `value`), `link` opens `target`
    (an http(s) address), `phone` calls `target` (`+` and digits)."""

    title: str
    kind: Literal["reply", "link", "phone"]
    value: str = ""
    target: str = ""


def read_buttons(items: Sequence[Mapping[str, Any]]) -> list[Button]:
    """The buttons of a card or a button template, in order; a link or phone button
    whose target is no web address or phone number is left out (as the console shows
    it inert)."""
    buttons = [read_button(item) for item in items]
    return [button for button in buttons if button is not None]


def read_button(item: Mapping[str, Any]) -> Button | None:
    title = str(item.get("title", ""))
    postback = str(item.get("postback") or title)
    kind = item.get("type")
    if kind == "goto":
        return Button(title, "reply", value=GOTO_PREFIX + postback)
    if kind == "phone":
        number = re.sub(r"^tel:", "", postback, flags=re.IGNORECASE)
        if not PHONE_NUMBER.match(number):
            return None
        return Button(title, "phone", target="+" + re.sub(r"[^0-9]", "", number))
    if kind in ("url", "webview") or WEB_ADDRESS.match(postback):
        return Button(title, "link", target=postback) if is_web_address(postback) else None
    return Button(title, "reply", value=QUERY_PREFIX + postback)


def is_web_address(value: str) -> bool:
    """An absolute http(s) address with a host, and no space or control character in
    it: what every platform takes as an image or a link (`https://`, `not a url` and
    `https://a b.example` are not)."""
    if NOT_IN_AN_ADDRESS.search(value):
        return False
    try:
        address = urlsplit(value)
        address.port  # noqa: B018 - raises ValueError on a port that is no number
    except ValueError:
        return False
    return address.scheme.lower() in ("http", "https") and bool(address.hostname)


def blank(text: Any) -> bool:
    return not str(text or "").strip()


def quick_reply_buttons(item: Mapping[str, Any]) -> tuple[str, list[Button]]:
    """A quick-reply item's title and its buttons: a webhook's own buttons when it
    gave them, else one reply per quick reply."""
    message = item["messages"][0]
    if item.get("buttons"):
        return str(message["title"]), read_buttons(item["buttons"])
    replies = [Button(reply, "reply", value=QUERY_PREFIX + reply) for reply in message["replies"]]
    return str(message["title"]), replies


def fitted_value(
    button: Button, limit: int, unit: Literal["characters", "bytes"] = "characters"
) -> str:
    """The button's click value within the platform's limit, in characters or, where
    the platform counts them (Telegram), UTF-8 bytes. A query too long for it is said
    as the button's title instead, which is what the user sees on the button; an
    interaction id always fits."""
    size = len(button.value) if unit == "characters" else len(button.value.encode())
    if size <= limit:
        return button.value
    said = QUERY_PREFIX + button.title
    if unit == "characters":
        return said[:limit]
    return said.encode()[:limit].decode(errors="ignore")  # never half a character


def read_click(value: str) -> tuple[str | None, str | None]:
    """The (query, goto) a click value carries; a value Parley did not write (an older
    message's) is said as it is."""
    if value.startswith(GOTO_PREFIX):
        return None, value.removeprefix(GOTO_PREFIX)
    return value.removeprefix(QUERY_PREFIX), None


def chunks(text: str, limit: int, size: Callable[[str], int] = len) -> list[str]:
    """`text` in messages of at most `limit` (as `size` measures a piece as it is sent:
    characters, or Slack's escaped characters), so a message longer than the platform
    takes is sent whole, in order. Each piece ends at the last whitespace that fits
    (which is dropped), or within a word longer than a message; no piece is blank."""
    pieces: list[str] = []
    rest = text.strip()
    while rest and size(rest) > limit:
        fits = _longest_fitting(rest, limit, size)
        spaces = WHITESPACE.finditer(rest, 0, fits + 1)
        cut = max((space.start() for space in spaces), default=0) or fits
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return [piece for piece in [*pieces, rest] if piece]


def _longest_fitting(text: str, limit: int, size: Callable[[str], int]) -> int:
    """The most characters of `text` whose `size` is within `limit` (at least one)."""
    low, high = 1, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if size(text[:middle]) <= limit:
            low = middle
        else:
            high = middle - 1
    return low


def sendable(
    item: Mapping[str, Any], url_limit: int | None = None
) -> tuple[Mapping[str, Any] | None, list[Skipped]]:
    """The item as a platform may show it, and what was left out of it, so that one bad
    part never makes the platform refuse the whole message (nor stop the items after
    it): an image address that is no web address (`is_web_address`) or longer than the
    platform's `url_limit`, a button or quick reply with a blank label or a link that
    goes nowhere. A text, a card or a template left with nothing to show is None; a blank
    title over buttons is PLACEHOLDER."""
    skipped: list[Skipped] = []

    def image(url: Any) -> str:
        text = str(url or "")
        if not text:
            return ""
        if not is_web_address(text):
            skipped.append(Skipped("image_url_invalid"))
            return ""
        if url_limit is not None and len(text) > url_limit:
            skipped.append(Skipped("image_url_too_long"))
            return ""
        return text

    def buttons(items: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        kept = []
        for button in items:
            read = read_button(button)
            if blank(button.get("title")):
                skipped.append(Skipped("blank_label"))
            elif read is None:
                skipped.append(Skipped("button_target_invalid"))
            elif read.kind == "link" and url_limit is not None and len(read.target) > url_limit:
                skipped.append(Skipped("link_url_too_long"))
            else:
                kept.append(button)
        return kept

    def labels(replies: Sequence[Any]) -> list[str]:
        kept = [str(reply) for reply in replies if not blank(reply)]
        skipped.extend(Skipped("blank_label") for _ in range(len(replies) - len(kept)))
        return kept

    kept: Mapping[str, Any] | None
    match item.get("type"):
        case "text":
            kept = None if blank(item.get("message")) else item
        case "image":
            url = image(item.get("imageUrl"))
            kept = {**item, "imageUrl": url} if url else None
        case "card":
            kept = _card(item, image(item.get("imageUrl")), buttons(item.get("buttons", [])))
        case "buttonTemplate":
            kept = _titled(item, "title", buttons(item.get("buttons", [])))
        case "quickReply":
            kept = _quick_reply(item, labels, buttons)
        case _:
            kept = item
    if kept is None and item.get("type") in ("text", "card", "buttonTemplate", "quickReply"):
        skipped.append(Skipped("nothing_to_show"))
    return kept, skipped


def _card(
    card: Mapping[str, Any], image_url: str, buttons: list[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """A card's blank title is its subtitle's place; a card of nothing but an image is
    that image."""
    title, subtitle = str(card.get("title") or ""), str(card.get("subtitle") or "")
    if blank(title):
        title, subtitle = subtitle, ""
    if blank(title) and not buttons:
        return {"type": "image", "imageUrl": image_url, **_delay(card)} if image_url else None
    return {
        **card,
        "title": PLACEHOLDER if blank(title) else title,
        "subtitle": "" if blank(subtitle) else subtitle,
        "imageUrl": image_url,
        "buttons": buttons,
    }


def _titled(
    item: Mapping[str, Any], name: str, buttons: list[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    if blank(item.get(name)):
        return {**item, name: PLACEHOLDER, "buttons": buttons} if buttons else None
    return {**item, "buttons": buttons}


def _quick_reply(
    item: Mapping[str, Any],
    labels: Callable[[Sequence[Any]], list[str]],
    buttons: Callable[[Sequence[Mapping[str, Any]]], list[Mapping[str, Any]]],
) -> Mapping[str, Any] | None:
    messages = []
    for message in item.get("messages", []):
        replies = labels(message.get("replies", []))
        if not blank(message.get("title")):
            messages.append({**message, "replies": replies})
        elif replies:
            messages.append({**message, "title": PLACEHOLDER, "replies": replies})
    if not messages:
        return None
    kept: dict[str, Any] = {**item, "messages": messages}
    if item.get("buttons"):
        kept["buttons"] = buttons(item["buttons"])
    return kept


def _delay(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"delay": item["delay"]} if item.get("delay") else {}


def calls_with_delays(
    fulfillment: Fulfillment,
    calls_of: Callable[[Mapping[str, Any]], Sequence[Call | Skipped]],
    url_limit: int | None = None,
) -> list[Outgoing]:
    """The calls that show each item (`calls_of`, the platform's, given the item as
    `sendable` leaves it), in order, with a `Pause` before an item that asks for a
    `delay` (milliseconds, from a webhook's answer), and what was left out. An item the
    platform shows nothing for (a handoff) waits for nothing."""
    outgoing: list[Outgoing] = []
    for item in fulfillment:
        kept, skipped = sendable(item, url_limit)
        outgoing += skipped
        if kept is None:
            continue
        calls = calls_of(kept)
        if any(isinstance(call, Call) for call in calls) and item.get("delay"):
            outgoing.append(Pause(float(item["delay"]) / 1000))
        outgoing += calls
    return outgoing
