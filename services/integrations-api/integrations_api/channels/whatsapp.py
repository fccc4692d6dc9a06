"""WhatsApp Cloud API (docs/channels.md "WhatsApp"): the `messages` webhook field in,
`POST /<phone number id>/messages` out.

Meta sends a notification again while the 200 is missing; each message carries its
`id` (`wamid...`), which the channel answers once.
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
    Profile,
    Reply,
    Request,
    Skipped,
    shape_errors_as_value_error,
)
from shared.fulfillment import ButtonTemplate, Card, Image, QuickReplies, Text

TEXT_LIMIT = 4096
"""Characters of a text message's body (and of a list message's)."""
INTERACTIVE_BODY_LIMIT = 1024
REPLY_BUTTONS_LIMIT = 3
REPLY_TITLE_LIMIT = 20
REPLY_ID_LIMIT = 256
LIST_ROWS_LIMIT = 10
ROW_TITLE_LIMIT = 24
ROW_ID_LIMIT = 200
"""The Cloud API's documented limits (characters, or items): a reply-button message's
body, its buttons with their titles and ids, a list's rows with theirs. The API
refuses a message over any of them."""
LIST_BUTTON = "☰"
"""The label of the button that opens a list (at most 20 characters): a sign, since a
story may speak any language."""


class WhatsApp:
    type: str = "whatsapp"
    credential_names: tuple[str, ...] = ("accessToken", "phoneNumberId", "appSecret", "verifyToken")

    def authenticate(self, credentials: Credentials, request: Request, now: float) -> bool:
        return meta.authenticate(credentials, request)

    def challenge(self, credentials: Credentials, request: Request) -> Reply | None:
        return meta.challenge(credentials, request)

    def read(self, credentials: Credentials, body: bytes) -> meta.Read:
        """Text messages and reply-button or list choices sent to the channel's number
        (the webhook is the Meta app's, which may have several); statuses (sent,
        delivered, read), media, locations and reactions are left."""
        with shape_errors_as_value_error():
            entries = meta.entries(body, "whatsapp_business_account")
        number = credentials["phoneNumberId"]
        return meta.each_read(
            entries,
            lambda entry: meta.each_read(
                entry.get("changes", []), lambda change: _read_change(number, change)
            ),
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
        return [_send(credentials, conversation, _text(piece)) for piece in pieces]


PLATFORM = WhatsApp()


def _read_change(number: str, change: Mapping[str, Any]) -> meta.Read:
    if change.get("field") != "messages":
        return []
    value = change["value"]
    if value["metadata"]["phone_number_id"] != number:
        return []
    names = _names(value)
    return meta.each_read(value.get("messages", []), lambda message: _read_message(message, names))


def _names(value: Mapping[str, Any]) -> dict[str, str]:
    """The profile name of each sender (`contacts[].profile.name`) by wa_id; a contact
    without a wa_id (a user Meta gives none) names nobody: the message's `from` is the
    user still."""
    contacts = value.get("contacts")
    if not isinstance(contacts, list):
        return {}
    return {
        str(contact["wa_id"]): str(contact["profile"]["name"])
        for contact in contacts
        if isinstance(contact, dict)
        and contact.get("wa_id")
        and isinstance(contact.get("profile"), dict)
        and contact["profile"].get("name")
    }


def _read_message(message: Mapping[str, Any], names: Mapping[str, str]) -> meta.Read:
    """A message of a user known by a phone number (`from`); one without (a user Meta
    names only by a business-scoped id) is skipped and counted."""
    if not message.get("from"):
        return [Skipped("no_wa_id")]
    wa_id = str(message["from"])
    profile = Profile(name=names.get(wa_id))
    query: str | None
    goto: str | None = None
    match message.get("type"):
        case "text":
            query = str(message["text"]["body"])
            if not query.strip():
                return []
        case "interactive":
            interactive = message.get("interactive")
            kind = interactive.get("type") if isinstance(interactive, dict) else None
            choice = interactive.get(kind) if isinstance(interactive, dict) and kind else None
            if not isinstance(choice, dict) or not choice.get("id"):
                return [Skipped("unreadable")]
            query, goto = read_click(str(choice["id"]))
        case _:
            return []
    return [Incoming(str(message["id"]), wa_id, wa_id, query=query, goto=goto, profile=profile)]


def _texts(item: Text) -> list[dict[str, Any]]:
    return [_text(piece) for piece in chunks(item.message, TEXT_LIMIT)]


def _quick_replies(item: QuickReplies) -> list[dict[str, Any]]:
    return [_choices(*quick_reply_buttons(item))]


def _button_template(item: ButtonTemplate) -> list[dict[str, Any]]:
    return [_choices(item.title, read_buttons(item.buttons))]


def _image(item: Image) -> list[dict[str, Any]]:
    return [{"type": "image", "image": {"link": item.image_url}}]


def _text(body: str) -> dict[str, Any]:
    return {"type": "text", "text": {"body": body, "preview_url": False}}


def _choices(
    title: str, buttons: list[Button], header: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Up to 3 replies as reply buttons, up to 10 as a list (further ones are left
    out); a link or phone button, which neither can hold, is written in the text. A
    card's image (`header`) keeps reply buttons, at most 3; with no reply at all, it is
    an image with the text as its caption."""
    body = _with_links(title, buttons)
    replies = _distinct_replies(buttons)
    if not replies:
        if header is not None:
            image = {"link": header["image"]["link"], "caption": body[:INTERACTIVE_BODY_LIMIT]}
            return {"type": "image", "image": image}
        return _text(body[:TEXT_LIMIT])
    if len(replies) <= REPLY_BUTTONS_LIMIT or header is not None:
        action = {"buttons": [_reply_button(button) for button in replies[:REPLY_BUTTONS_LIMIT]]}
        interactive: dict[str, Any] = {
            "type": "button",
            "body": {"text": body[:INTERACTIVE_BODY_LIMIT]},
            "action": action,
        }
        if header is not None:
            interactive["header"] = header
        return {"type": "interactive", "interactive": interactive}
    rows = [_row(button) for button in replies[:LIST_ROWS_LIMIT]]
    interactive = {
        "type": "list",
        "body": {"text": body[:TEXT_LIMIT]},
        "action": {"button": LIST_BUTTON, "sections": [{"rows": rows}]},
    }
    return {"type": "interactive", "interactive": interactive}


def _card(card: Card) -> list[dict[str, Any]]:
    """A card as reply buttons under its image (WhatsApp's `header`), its title in
    bold and its subtitle below."""
    text = f"*{card.title}*" + (f"\n{card.subtitle}" if card.subtitle else "")
    header = {"type": "image", "image": {"link": card.image_url}} if card.image_url else None
    return [_choices(text, read_buttons(card.buttons), header)]


def _with_links(text: str, buttons: list[Button]) -> str:
    lines = [f"{button.title}: {button.target}" for button in buttons if button.kind != "reply"]
    return "\n".join([text, *lines])


def _distinct_replies(buttons: list[Button]) -> list[Button]:
    """Reply buttons and list rows must differ in id and title: a repeated one is
    left out."""
    distinct: dict[tuple[str, str], Button] = {}
    for button in buttons:
        value, title = fitted_value(button, ROW_ID_LIMIT), button.title[:REPLY_TITLE_LIMIT]
        taken = any(value == other[0] or title == other[1] for other in distinct)
        if button.kind == "reply" and not taken:
            distinct[value, title] = button
    return list(distinct.values())


def _reply_button(button: Button) -> dict[str, Any]:
    reply = {"id": fitted_value(button, REPLY_ID_LIMIT), "title": button.title[:REPLY_TITLE_LIMIT]}
    return {"type": "reply", "reply": reply}


def _row(button: Button) -> dict[str, Any]:
    return {"id": fitted_value(button, ROW_ID_LIMIT), "title": button.title[:ROW_TITLE_LIMIT]}


SHOWS: Shows[dict[str, Any]] = Shows(
    text=_texts,
    quick_replies=_quick_replies,
    image=_image,
    card=_card,
    button_template=_button_template,
    handoff=not_shown,
)
"""The message objects (without `to`) that show each kind of item."""


def _send(credentials: Credentials, wa_id: str, message: Mapping[str, Any]) -> Call:
    body = {"messaging_product": "whatsapp", "recipient_type": "individual", "to": wa_id}
    path = f"/{credentials['phoneNumberId']}/messages"
    return meta.graph_call(path, credentials["accessToken"], {**body, **message})
