"""What every platform does alike with an answer: what a button does on a channel and
how a click on it comes back, a text too long for one message, an item's delay.

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

from integrations_api.channels.platform import Call, Fulfillment, Outgoing, Pause

QUERY_PREFIX = "q:"
GOTO_PREFIX = "g:"
WEB_ADDRESS = re.compile(r"^https?://", re.IGNORECASE)
PHONE_NUMBER = re.compile(r"^\+?[0-9][0-9 ().-]{1,30}$")


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
        return Button(title, "link", target=postback) if WEB_ADDRESS.match(postback) else None
    return Button(title, "reply", value=QUERY_PREFIX + postback)


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


def chunks(text: str, limit: int) -> list[str]:
    """`text` in pieces of at most `limit` characters, so a message longer than the
    platform takes is sent whole, in several messages."""
    return [text[start : start + limit] for start in range(0, len(text), limit)]


def calls_with_delays(
    fulfillment: Fulfillment, calls_of: Callable[[Mapping[str, Any]], list[Call]]
) -> list[Outgoing]:
    """The calls that show each item (`calls_of`, the platform's), in order, with a
    `Pause` before an item that asks for a `delay` (milliseconds, from a webhook's
    answer). An item the platform shows nothing for (a handoff) waits for nothing."""
    outgoing: list[Outgoing] = []
    for item in fulfillment:
        calls = calls_of(item)
        if calls and item.get("delay"):
            outgoing.append(Pause(float(item["delay"]) / 1000))
        outgoing += calls
    return outgoing
