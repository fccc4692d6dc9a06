"""What a bot can answer: the response blocks an interaction stores or a webhook sends,
and the fulfillment items a turn shows once placeholders are filled in.

Stored blocks and webhook answers are told apart only by their `delay` (a webhook's
responses carry one) and by the types of their buttons; both become fulfillment items
through the same builder (`bot_api.engine.fulfillment`).
"""

from dataclasses import dataclass


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


Block = TextChoice | QuickReplies | Image | Card | ButtonTemplate
FulfillmentItem = Text | QuickReplies | Image | Card | ButtonTemplate
