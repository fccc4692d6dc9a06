"""What a bot can answer: the response blocks an interaction stores or a webhook sends,
and the fulfillment items a turn shows once placeholders are filled in.

Stored blocks and webhook answers are told apart only by their `delay` (a webhook's
responses carry one) and by the types of their buttons; both become fulfillment items
through the same builder (`bot_api.engine.fulfillment`).
"""

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

PLACEHOLDER = re.compile(r"\{\{\s*([\w-]+)\s*\}\}")
"""`{{name}}` in a text the bot sends: the parameter's value takes its place."""
WEB_ADDRESS_SCHEMES = ("http://", "https://")
MAIL_LINK = re.compile(r"mailto:[^\s@:/]+@[^\s@:/]+\.[^\s@:/]+", re.IGNORECASE)
"""A `mailto:` link to one address: the widget opens it (channels whose platform cannot
leave the button out, counted)."""


@dataclass(frozen=True)
class Button:
    title: str
    postback: str
    kind: str | None = None
    """A webhook button's type (postback, goto, url, webview, phone); None when stored."""
    height: str | None = None
    """A webview button's height."""


@dataclass(frozen=True)
class TextChoice:
    """A text block: one of its messages is chosen at random on each match."""

    messages: tuple[str, ...]
    delay: int | None = None


@dataclass(frozen=True)
class Text:
    message: str
    delay: int | None = None


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
    """Hands the conversation to a person: from this turn on, the user's messages go to
    the story's webhook connection `connection` instead of the bot (docs/api.md "Handoffs"),
    until the person gives the conversation back. A block and its fulfillment item."""

    connection: str
    delay: int | None = None


Block = TextChoice | QuickReplies | Image | Card | ButtonTemplate | Handoff
FulfillmentItem = Text | QuickReplies | Image | Card | ButtonTemplate | Handoff


def handoff_of(items: tuple[FulfillmentItem, ...]) -> Handoff | None:
    """The handoff among a turn's items (an interaction has at most one), or None."""
    return next((item for item in items if isinstance(item, Handoff)), None)


def is_web_address(text: str) -> bool:
    """Whether `text` is an address a platform can fetch or open: an absolute http(s) URL
    with a host and no blank anywhere ("https://", "not a url", "https://a b.png" are not)."""
    if any(c.isspace() for c in text) or not text.lower().startswith(WEB_ADDRESS_SCHEMES):
        return False
    try:
        parts = urlsplit(text)
        _ = parts.port  # a port that is no number raises
    except ValueError:
        return False
    return bool(parts.hostname)


def is_web_address_template(text: str) -> bool:
    """Whether a stored address may become a web address once its `{{name}}`s are filled:
    one starting with a placeholder (a parameter holds the whole address) is checked only
    as it is sent; any other must be one with each placeholder read as a word."""
    if PLACEHOLDER.match(text):
        return True
    return is_web_address(PLACEHOLDER.sub("x", text))


def is_link_template(text: str) -> bool:
    """Whether a link button's value may open once filled: a web address (as
    `is_web_address_template` reads it) or a mail link. `javascript:`, `data:` and the
    like never are."""
    return is_web_address_template(text) or MAIL_LINK.fullmatch(text) is not None


def is_link(text: str) -> bool:
    """Whether a link button's filled value opens: a web address or a mail link."""
    return is_web_address(text) or MAIL_LINK.fullmatch(text) is not None


def looks_like_web_address(text: str) -> bool:
    """Whether a stored button's postback is meant as a link: it starts with http(s)://
    (as every channel and the console read it)."""
    return text.lower().startswith(WEB_ADDRESS_SCHEMES)
