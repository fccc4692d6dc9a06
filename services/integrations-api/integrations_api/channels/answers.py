"""What every platform does alike with an answer: which of its items a platform shows
and how (`Shows`), what a button does on a channel and how a click on it comes back, a
text too long for one message, an item's delay, and what is left out before a platform
sees it (`sendable`).

The items are the typed values of the answer contract (shared/fulfillment.py), handed
to a platform by one exhaustive dispatch (`shown`): each platform declares, kind by
kind, the messages that show an item, or `not_shown` (its explicit replacement:
nothing). A handoff is shown by none: a person answers next.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Literal, TypeVar, assert_never
from urllib.parse import urlsplit

from integrations_api.channels.platform import Call, Outgoing, Pause, Skipped
from shared import fulfillment
from shared.fulfillment import ButtonTemplate, Card, Handoff, Image, Item, QuickReplies, Text

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


Message = TypeVar("Message")


@dataclass(frozen=True)
class Shows(Generic[Message]):
    """A platform's messages for each kind of item (as `sendable` leaves it), or
    `not_shown` for a kind it shows nothing of. A new kind of item is a new field here,
    which every platform must then declare (mypy), and a new case of `shown`."""

    text: Callable[[Text], list[Message]]
    quick_replies: Callable[[QuickReplies], list[Message]]
    image: Callable[[Image], list[Message]]
    card: Callable[[Card], list[Message]]
    button_template: Callable[[ButtonTemplate], list[Message]]
    handoff: Callable[[Handoff], list[Message]]


def not_shown(item: Item) -> list[Any]:
    """A platform's replacement for an item it cannot show: nothing."""
    return []


def shown(shows: Shows[Message], item: Item) -> list[Message]:
    """The messages that show `item` on the platform of `shows`."""
    match item:
        case Text():
            return shows.text(item)
        case QuickReplies():
            return shows.quick_replies(item)
        case Image():
            return shows.image(item)
        case Card():
            return shows.card(item)
        case ButtonTemplate():
            return shows.button_template(item)
        case Handoff():
            return shows.handoff(item)
        case _:
            assert_never(item)


def read_buttons(items: Sequence[fulfillment.Button]) -> list[Button]:
    """The buttons of a card or a button template, in order; a link or phone button
    whose target is no web address or phone number is left out (as the console shows
    it inert)."""
    buttons = [read_button(item) for item in items]
    return [button for button in buttons if button is not None]


def read_button(item: fulfillment.Button) -> Button | None:
    title = item.title
    postback = item.postback or title
    kind = item.kind
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


def blank(text: str) -> bool:
    return not text.strip()


def quick_reply_buttons(item: QuickReplies) -> tuple[str, list[Button]]:
    """A quick-reply item's title and its buttons: a webhook's own buttons when it
    gave them, else one reply per quick reply."""
    if item.buttons:
        return item.title, read_buttons(item.buttons)
    return item.title, [
        Button(reply, "reply", value=QUERY_PREFIX + reply) for reply in item.replies
    ]


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


def sendable(item: Item, url_limit: int | None = None) -> tuple[Item | None, list[Skipped]]:
    """The item as a platform may show it, and what was left out of it, so that one bad
    part never makes the platform refuse the whole message (nor stop the items after
    it): an image address that is no web address (`is_web_address`) or longer than the
    platform's `url_limit`, a button or quick reply with a blank label or a link that
    goes nowhere. A text, a card or a template left with nothing to show is None; a blank
    title over buttons is PLACEHOLDER."""
    skipped: list[Skipped] = []

    def image(url: str) -> str:
        if not url:
            return ""
        if not is_web_address(url):
            skipped.append(Skipped("image_url_invalid"))
            return ""
        if url_limit is not None and len(url) > url_limit:
            skipped.append(Skipped("image_url_too_long"))
            return ""
        return url

    def buttons(items: Sequence[fulfillment.Button]) -> tuple[fulfillment.Button, ...]:
        kept = []
        for button in items:
            read = read_button(button)
            if blank(button.title):
                skipped.append(Skipped("blank_label"))
            elif read is None:
                skipped.append(Skipped("button_target_invalid"))
            elif read.kind == "link" and url_limit is not None and len(read.target) > url_limit:
                skipped.append(Skipped("link_url_too_long"))
            else:
                kept.append(button)
        return tuple(kept)

    kept: Item | None
    match item:
        case Text():
            kept = None if blank(item.message) else item
        case Image():
            url = image(item.image_url)
            kept = replace(item, image_url=url) if url else None
        case Card():
            kept = _card(item, image(item.image_url), buttons(item.buttons))
        case ButtonTemplate():
            kept = _titled(item, buttons(item.buttons))
        case QuickReplies():
            replies = tuple(reply for reply in item.replies if not blank(reply))
            skipped.extend(Skipped("blank_label") for _ in range(len(item.replies) - len(replies)))
            kept = _quick_reply(item, replies, buttons(item.buttons))
        case Handoff():
            kept = item
        case _:
            assert_never(item)
    if kept is None and not isinstance(item, Image):
        skipped.append(Skipped("nothing_to_show"))
    return kept, skipped


def _card(card: Card, image_url: str, buttons: tuple[fulfillment.Button, ...]) -> Item | None:
    """A card's blank title is its subtitle's place; a card of nothing but an image is
    that image."""
    title, subtitle = card.title, card.subtitle
    if blank(title):
        title, subtitle = subtitle, ""
    if blank(title) and not buttons:
        return Image(image_url, card.delay) if image_url else None
    return replace(
        card,
        title=PLACEHOLDER if blank(title) else title,
        subtitle="" if blank(subtitle) else subtitle,
        image_url=image_url,
        buttons=buttons,
    )


def _titled(item: ButtonTemplate, buttons: tuple[fulfillment.Button, ...]) -> Item | None:
    if blank(item.title):
        return replace(item, title=PLACEHOLDER, buttons=buttons) if buttons else None
    return replace(item, buttons=buttons)


def _quick_reply(
    item: QuickReplies, replies: tuple[str, ...], buttons: tuple[fulfillment.Button, ...]
) -> Item | None:
    if not blank(item.title):
        return replace(item, replies=replies, buttons=buttons)
    if replies:
        return replace(item, title=PLACEHOLDER, replies=replies, buttons=buttons)
    return None


def calls_with_delays(
    answer: Sequence[Item],
    shows: Shows[Message],
    call: Callable[[Message], Call],
    url_limit: int | None = None,
) -> list[Outgoing]:
    """The calls that show each item (the platform's `shows`, given the item as
    `sendable` leaves it, each message made a `call`), in order, with a `Pause` before
    an item that asks for a `delay` (milliseconds, from a webhook's answer), and what
    was left out. An item the platform shows nothing for (a handoff) waits for nothing."""
    outgoing: list[Outgoing] = []
    for item in answer:
        kept, skipped = sendable(item, url_limit)
        outgoing += skipped
        if kept is None:
            continue
        calls = [call(message) for message in shown(shows, kept)]
        if calls and item.delay:
            outgoing.append(Pause(item.delay / 1000))
        outgoing += calls
    return outgoing
