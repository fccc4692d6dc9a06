"""A stand-in for Meta's Graph API as a channel calls it: Messenger's Send API
(`POST /<version>/me/messages`) and the WhatsApp Cloud API's messages endpoint
(`POST /<version>/<phone number id>/messages`), and Meta's signing of the webhook calls
it sends an app.

Checked as Meta's references document them (types, required fields, the limits of
each text, list and template). Graph answers a refused call with HTTP 400 and
`{"error": {"message", "type": "OAuthException", "code": 100, "fbtrace_id"}}`, a bad
token with code 190, and a rate-limited call here with 429 and `Retry-After`.
"""

import hashlib
import hmac
import re
from typing import Any

from aiohttp import web

from support.platforms.standin import Problems, Recorded, StandIn

VERSION = re.compile(r"^v\d+\.\d$")


def signed_headers(app_secret: str, body: bytes) -> dict[str, str]:
    """The header Meta sends with a webhook call: `sha256=` and the hex HMAC-SHA256 of
    the raw body with the app secret."""
    digest = hmac.new(app_secret.encode(), body, hashlib.sha256).hexdigest()
    return {"X-Hub-Signature-256": f"sha256={digest}"}


PSID = "6254477777772919"
"""The Page-scoped id of the Messenger user in the calls below."""
WA_ID = "16315551181"
"""The WhatsApp user's number in the calls below (Meta's example)."""
PHONE_NUMBER_ID = "106540352242922"
APP_SECRET = "6c8d1e4a0b2f3c5d7e9f1a3b5c7d9e1f"
MESSENGER = {"pageAccessToken": "EAAGm0PX4ZCpsBAPage", "appSecret": APP_SECRET,
             "verifyToken": "pizza-verify"}  # fmt: skip
WHATSAPP = {"accessToken": "EAAGm0PX4ZCpsBAWhatsApp", "phoneNumberId": PHONE_NUMBER_ID,
            "appSecret": APP_SECRET, "verifyToken": "pizza-verify"}  # fmt: skip
"""A Messenger and a WhatsApp channel's credentials, those MetaStandIn is made with."""


def messenger_call(*events: dict[str, Any]) -> dict[str, Any]:
    """A webhook call to a Page carrying these `messaging` events of the user PSID, as
    Messenger's reference documents it."""
    sent = {"sender": {"id": PSID}, "recipient": {"id": "1143"}, "timestamp": 1458692752478}
    entry = {"id": "1143", "time": 1458692752478, "messaging": [{**sent, **e} for e in events]}
    return {"object": "page", "entry": [entry]}


def whatsapp_call(*messages: dict[str, Any]) -> dict[str, Any]:
    """A `messages` notification to the number PHONE_NUMBER_ID carrying these messages of
    the user WA_ID, with the user's profile name, as the Cloud API documents it."""
    value = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550783881", "phone_number_id": PHONE_NUMBER_ID},
        "contacts": [{"profile": {"name": "Sheena Nelson"}, "wa_id": WA_ID}],
        "messages": [{"from": WA_ID, "timestamp": "1749416383", **m} for m in messages],
    }
    entry = {"id": "102290129340398", "changes": [{"field": "messages", "value": value}]}
    return {"object": "whatsapp_business_account", "entry": [entry]}


def send_api_problems(body: Any) -> list[str]:
    """What is wrong with a Messenger Send API body; [] when Graph takes it."""
    problems = Problems()
    call = problems.keys("body", body, {"recipient", "messaging_type", "message", "tag"})
    recipient = problems.keys("recipient", call.get("recipient"), {"id"})
    problems.text("recipient.id", recipient.get("id"), 64)
    if call.get("messaging_type") not in ("RESPONSE", "UPDATE", "MESSAGE_TAG"):
        problems.add("messaging_type", "RESPONSE, UPDATE or MESSAGE_TAG")
    message = problems.keys("message", call.get("message"), {"text", "attachment", "quick_replies"})
    if ("text" in message) == ("attachment" in message):
        problems.add("message", "exactly one of text and attachment")
    problems.text("message.text", message.get("text"), 2000, required=False)
    if "attachment" in message:
        _attachment(problems, message["attachment"])
    if "quick_replies" in message:
        replies = problems.items("message.quick_replies", message["quick_replies"], 1, 13)
        for index, reply in enumerate(replies):
            where = f"message.quick_replies[{index}]"
            quick = problems.keys(where, reply, {"content_type", "title", "payload", "image_url"})
            if quick.get("content_type") != "text":
                problems.add(f"{where}.content_type", "text expected")
            problems.text(f"{where}.title", quick.get("title"), 20)
            problems.text(f"{where}.payload", quick.get("payload"), 1000)
    return problems.found


def _attachment(problems: Problems, value: Any) -> None:
    attachment = problems.keys("message.attachment", value, {"type", "payload"})
    payload = attachment.get("payload")
    if attachment.get("type") == "image":
        image = problems.keys("message.attachment.payload", payload, {"url", "is_reusable"})
        problems.web_address("message.attachment.payload.url", image.get("url"), 2000)
        return
    if attachment.get("type") != "template":
        problems.add("message.attachment.type", "image or template expected")
        return
    where = "message.attachment.payload"
    kind = payload.get("template_type") if isinstance(payload, dict) else None
    if kind == "button":
        template = problems.keys(where, payload, {"template_type", "text", "buttons"})
        problems.text(f"{where}.text", template.get("text"), 640)
        _buttons(problems, f"{where}.buttons", template.get("buttons"), low=1)
    elif kind == "generic":
        template = problems.keys(where, payload, {"template_type", "elements"})
        for index, value in enumerate(
            problems.items(f"{where}.elements", template.get("elements"), 1, 10)
        ):
            element_where = f"{where}.elements[{index}]"
            element = problems.keys(
                element_where, value, {"title", "subtitle", "image_url", "buttons"}
            )
            problems.text(f"{element_where}.title", element.get("title"), 80)
            if not set(element) & {"subtitle", "image_url", "buttons", "default_action"}:
                problems.add(element_where, "a title and nothing else is no element")
            problems.text(f"{element_where}.subtitle", element.get("subtitle"), 80, required=False)
            if "image_url" in element:
                problems.web_address(f"{element_where}.image_url", element["image_url"], 2000)
            if "buttons" in element:
                _buttons(problems, f"{element_where}.buttons", element["buttons"], low=1)
    else:
        problems.add(f"{where}.template_type", "button or generic expected")


def _buttons(problems: Problems, where: str, value: Any, low: int) -> None:
    for index, item in enumerate(problems.items(where, value, low, 3)):
        button_where = f"{where}[{index}]"
        button = problems.keys(button_where, item, {"type", "title", "payload", "url"})
        problems.text(f"{button_where}.title", button.get("title"), 20)
        match button.get("type"):
            case "postback":
                problems.text(f"{button_where}.payload", button.get("payload"), 1000)
            case "web_url":
                problems.web_address(f"{button_where}.url", button.get("url"), 2000)
            case "phone_number":
                payload = button.get("payload")
                if not isinstance(payload, str) or not re.fullmatch(r"\+[0-9]{4,20}", payload):
                    problems.add(f"{button_where}.payload", "a number starting with +")
            case kind:
                problems.add(f"{button_where}.type", f"{kind!r} is not a button a channel sends")


def whatsapp_problems(body: Any) -> list[str]:
    """What is wrong with a WhatsApp Cloud API message body; [] when it is taken."""
    problems = Problems()
    kind = body.get("type") if isinstance(body, dict) else None
    common = {"messaging_product", "recipient_type", "to", "type"}
    message = problems.keys("body", body, common | {str(kind)})
    if message.get("messaging_product") != "whatsapp":
        problems.add("messaging_product", "whatsapp expected")
    if message.get("recipient_type", "individual") != "individual":
        problems.add("recipient_type", "individual expected")
    problems.text("to", message.get("to"), 32)
    match kind:
        case "text":
            text = problems.keys("text", message.get("text"), {"body", "preview_url"})
            problems.text("text.body", text.get("body"), 4096)
        case "image":
            image = problems.keys("image", message.get("image"), {"link", "caption"})
            problems.web_address("image.link", image.get("link"), 2000)
            problems.text("image.caption", image.get("caption"), 1024, required=False)
        case "interactive":
            _interactive(problems, message.get("interactive"))
        case _:
            problems.add("type", f"{kind!r} is not a message a channel sends")
    return problems.found


def _interactive(problems: Problems, value: Any) -> None:
    interactive = problems.keys(
        "interactive", value, {"type", "header", "body", "footer", "action"}
    )
    kind = interactive.get("type")
    body = problems.keys("interactive.body", interactive.get("body"), {"text"})
    problems.text("interactive.body.text", body.get("text"), 1024 if kind == "button" else 4096)
    if "footer" in interactive:
        footer = problems.keys("interactive.footer", interactive["footer"], {"text"})
        problems.text("interactive.footer.text", footer.get("text"), 60)
    if "header" in interactive:
        header = problems.keys(
            "interactive.header", interactive["header"], {"type", "text", "image"}
        )
        if header.get("type") == "image" and kind == "button":
            image = problems.keys("interactive.header.image", header.get("image"), {"link"})
            problems.web_address("interactive.header.image.link", image.get("link"), 2000)
        elif header.get("type") == "text":
            problems.text("interactive.header.text", header.get("text"), 60)
        else:
            problems.add("interactive.header.type", "text, or image on reply buttons")
    if kind == "button":
        action = problems.keys("interactive.action", interactive.get("action"), {"buttons"})
        buttons = problems.items("interactive.action.buttons", action.get("buttons"), 1, 3)
        replies = []
        for index, item in enumerate(buttons):
            where = f"interactive.action.buttons[{index}]"
            button = problems.keys(where, item, {"type", "reply"})
            if button.get("type") != "reply":
                problems.add(f"{where}.type", "reply expected")
            reply = problems.keys(f"{where}.reply", button.get("reply"), {"id", "title"})
            problems.text(f"{where}.reply.id", reply.get("id"), 256)
            problems.text(f"{where}.reply.title", reply.get("title"), 20)
            replies.append(reply)
        problems.distinct("interactive.action.buttons[].reply.id", [r.get("id") for r in replies])
        problems.distinct(
            "interactive.action.buttons[].reply.title", [r.get("title") for r in replies]
        )
    elif kind == "list":
        _list_action(problems, interactive.get("action"))
    else:
        problems.add("interactive.type", f"{kind!r} is not an interactive message a channel sends")


def _list_action(problems: Problems, value: Any) -> None:
    action = problems.keys("interactive.action", value, {"button", "sections"})
    problems.text("interactive.action.button", action.get("button"), 20)
    sections = problems.items("interactive.action.sections", action.get("sections"), 1, 10)
    rows: list[dict[str, Any]] = []
    for index, item in enumerate(sections):
        where = f"interactive.action.sections[{index}]"
        section = problems.keys(where, item, {"title", "rows"})
        problems.text(f"{where}.title", section.get("title"), 24, required=len(sections) > 1)
        for row_index, row_item in enumerate(
            problems.items(f"{where}.rows", section.get("rows"), 1, 10)
        ):
            row_where = f"{where}.rows[{row_index}]"
            row = problems.keys(row_where, row_item, {"id", "title", "description"})
            problems.text(f"{row_where}.id", row.get("id"), 200)
            problems.text(f"{row_where}.title", row.get("title"), 24)
            problems.text(f"{row_where}.description", row.get("description"), 72, required=False)
            rows.append(row)
    if len(rows) > 10:
        problems.add("interactive.action.sections", f"{len(rows)} rows in all, at most 10")
    problems.distinct("interactive.action.sections[].rows[].id", [row.get("id") for row in rows])


class MetaStandIn(StandIn):
    """Graph's Send API for one Page token and the WhatsApp messages endpoint for one
    phone number id and its token; `app()` to serve them."""

    def __init__(self, page_access_token: str, phone_number_id: str, access_token: str) -> None:
        super().__init__()
        self.tokens = {"me": page_access_token, phone_number_id: access_token}

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/{version}/{sender}/messages", self.messages)
        return app

    async def messages(self, request: web.Request) -> web.Response:
        sender = request.match_info["sender"]
        if not VERSION.match(request.match_info["version"]) or sender not in self.tokens:
            return _graph_error(400, 803, "Unknown path components")
        if self.take_busy():
            headers = {"Retry-After": str(self.retry_after_seconds)}
            return _graph_error(429, 4, "Application request limit reached", headers)
        if request.headers.get("Authorization") != f"Bearer {self.tokens[sender]}":
            return _graph_error(400, 190, "Invalid OAuth access token")
        if request.content_type != "application/json":
            return _graph_error(400, 100, "Invalid parameter")
        body = await request.json()
        recorded = Recorded(request.path, dict(request.headers), body)
        problems = send_api_problems(body) if sender == "me" else whatsapp_problems(body)
        if problems:
            self.refused.append((recorded, problems))
            return _graph_error(400, 100, "(#100) " + "; ".join(problems))
        self.accepted.append(recorded)
        message_id = f"m_{len(self.accepted)}"
        if sender == "me":
            return web.json_response(
                {"recipient_id": body["recipient"]["id"], "message_id": message_id}
            )
        contact = {"input": body["to"], "wa_id": body["to"]}
        return web.json_response(
            {
                "messaging_product": "whatsapp",
                "contacts": [contact],
                "messages": [{"id": "wamid." + message_id}],
            }
        )


def _graph_error(
    status: int, code: int, message: str, headers: dict[str, str] | None = None
) -> web.Response:
    error = {"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "standin"}
    return web.json_response({"error": error}, status=status, headers=headers)
