"""A stand-in for Telegram's Bot API (https://core.telegram.org/bots/api), for the
methods Parley calls: setWebhook, sendMessage, sendPhoto, answerCallbackQuery.

Each request is checked against the documented shape (a JSON body; the method's
required fields with their types; no field Parley has no business sending; keyboards
as documented; text, caption and callback_data within Telegram's limits) and recorded.
A request that breaks the shape is answered 400 as Telegram would and recorded in
`refused`, so a test can insist there is none. `fail` makes the next calls of a method
answer an error first (429 with `parameters.retry_after`, a 5xx, a 400); `slow` makes
every call of a method answer late, and `hang` makes the calls to some chats answer
only once released (a platform's outage, as one channel sees it).
"""

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from support.platforms.standin import is_web_address

TOKEN = re.compile(r"^\d+:[A-Za-z0-9_-]+$")
SECRET_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
UPDATE_TYPES = {"message", "edited_message", "callback_query", "inline_query", "poll"}


@dataclass(frozen=True)
class Sent:
    method: str
    fields: dict[str, Any]


@dataclass
class Failure:
    status: int
    description: str
    retry_after: int | None = None


@dataclass
class TelegramStandIn:
    token: str
    sent: list[Sent] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    failures: dict[str, list[Failure]] = field(default_factory=dict)
    webhook: dict[str, Any] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)
    outage: asyncio.Event | None = None
    """The calls to the `hung` chats wait for it; `held` counts those waiting."""
    hung: set[int] = field(default_factory=set)
    passing: int = 0
    """Calls to the `hung` chats still answered before they hang."""
    held: int = 0
    url: str = ""
    """Where the stand-in listens, once started."""

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self.handle)
        return app

    def fail(self, method: str, *failures: Failure) -> None:
        """The next calls of `method` answer these, in order, before succeeding."""
        self.failures.setdefault(method, []).extend(failures)

    def slow(self, method: str, seconds: float) -> None:
        """Every call of `method` answers after `seconds`."""
        self.delays[method] = seconds

    def hang(self, chats: set[int], passing: int = 0) -> asyncio.Event:
        """The calls to `chats` (but the next `passing`) answer only once the event
        returned is set."""
        self.hung, self.passing = chats, passing
        self.outage = asyncio.Event()
        return self.outage

    def of(self, method: str) -> list[dict[str, Any]]:
        return [s.fields for s in self.sent if s.method == method]

    async def handle(self, request: web.Request) -> web.Response:
        token, method = request.match_info["token"], request.match_info["method"]
        if not TOKEN.match(token) or token != self.token:
            return _error(401, "Unauthorized")
        if request.content_type != "application/json":
            return self._refuse(f"{method}: content type {request.content_type}")
        body = await request.json()
        check = CHECKS.get(method)
        if check is None:
            return _error(404, "Not Found: method not found")
        problem = check(body) if isinstance(body, dict) else "not an object"
        if problem:
            return self._refuse(f"{method}: {problem}")
        await asyncio.sleep(self.delays.get(method, 0.0))
        if self.outage is not None and body.get("chat_id") in self.hung and self._hangs():
            self.held += 1
            await self.outage.wait()
            self.held -= 1
        if self.failures.get(method):
            failure = self.failures[method].pop(0)
            self.sent.append(Sent(f"{method} (answered {failure.status})", body))
            return _error(failure.status, failure.description, failure.retry_after)
        self.sent.append(Sent(method, body))
        if method == "setWebhook":
            self.webhook = body
            return web.json_response({"ok": True, "result": True, "description": "Webhook was set"})
        if method == "answerCallbackQuery":
            return web.json_response({"ok": True, "result": True})
        message = {"message_id": len(self.sent), "date": 0, "chat": {"id": body["chat_id"]}}
        return web.json_response({"ok": True, "result": message})

    def _hangs(self) -> bool:
        self.passing -= 1
        return self.passing < 0

    def _refuse(self, problem: str) -> web.Response:
        self.refused.append(problem)
        return _error(400, f"Bad Request: {problem}")


def _error(status: int, description: str, retry_after: int | None = None) -> web.Response:
    answer: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
    if retry_after is not None:
        answer["parameters"] = {"retry_after": retry_after}
    return web.json_response(answer, status=status)


def _fields(body: dict[str, Any], required: dict[str, Any], optional: dict[str, Any]) -> str:
    for name, kind in required.items():
        if not isinstance(body.get(name), kind):
            return f"{name} missing or not {kind}"
    for name, kind in optional.items():
        if name in body and not isinstance(body[name], kind):
            return f"{name} is not {kind}"
    unknown = set(body) - set(required) - set(optional)
    return f"unexpected fields {sorted(unknown)}" if unknown else ""


def _set_webhook(body: dict[str, Any]) -> str:
    problem = _fields(body, {"url": str}, {"secret_token": str, "allowed_updates": list})
    if problem:
        return problem
    if not body["url"].startswith(("https://", "http://127.0.0.1")):
        return "url: an HTTPS URL is required"
    if "secret_token" in body and not SECRET_TOKEN.match(body["secret_token"]):
        return "secret_token: 1-256 characters A-Z, a-z, 0-9, _ and -"
    if not set(body.get("allowed_updates", [])) <= UPDATE_TYPES:
        return "allowed_updates: unknown update type"
    return ""


def _text(text: Any, limit: int, name: str) -> str:
    if not isinstance(text, str) or not 1 <= len(text) <= limit:
        return f"{name}: 1-{limit} chars"
    return "" if text.strip() else f"{name}: message text is empty"


def _markup(markup: Any) -> str:
    if not isinstance(markup, dict):
        return "reply_markup is not an object"
    if "inline_keyboard" in markup:
        for row in markup["inline_keyboard"]:
            for button in row:
                problem = _inline_button(button)
                if problem:
                    return problem
        return "" if set(markup) == {"inline_keyboard"} else "inline markup: unexpected fields"
    if "keyboard" in markup:
        buttons = [b for row in markup["keyboard"] for b in row]
        if not all(isinstance(b, dict) and _label(b.get("text")) for b in buttons):
            return "keyboard: each button needs text"
        allowed = {"keyboard", "one_time_keyboard", "resize_keyboard", "is_persistent"}
        return "" if set(markup) <= allowed else "keyboard markup: unexpected fields"
    return "reply_markup: no keyboard"


def _inline_button(button: Any) -> str:
    if not isinstance(button, dict) or not _label(button.get("text")):
        return "inline button: text required"
    actions = set(button) - {"text"}
    if actions == {"url"}:
        return "" if is_web_address(button["url"]) else "BUTTON_URL_INVALID"
    if actions == {"callback_data"}:
        size = len(button["callback_data"].encode())
        return "" if 1 <= size <= 64 else "BUTTON_DATA_INVALID: callback_data 1-64 bytes"
    return "inline button: exactly one of url and callback_data"


def _label(text: Any) -> bool:
    return isinstance(text, str) and bool(text.strip())


def _send_message(body: dict[str, Any]) -> str:
    problem = _fields(body, {"chat_id": int | str, "text": str}, {"reply_markup": dict})
    problem = problem or _text(body["text"], 4096, "text")
    return problem or (_markup(body["reply_markup"]) if "reply_markup" in body else "")


def _send_photo(body: dict[str, Any]) -> str:
    problem = _fields(
        body, {"chat_id": int | str, "photo": str}, {"caption": str, "reply_markup": dict}
    )
    if "caption" in body:
        problem = problem or _text(body["caption"], 1024, "caption")
    if not problem and not is_web_address(body["photo"]):
        problem = "photo: wrong HTTP URL specified"
    return problem or (_markup(body["reply_markup"]) if "reply_markup" in body else "")


def _answer_callback_query(body: dict[str, Any]) -> str:
    return _fields(body, {"callback_query_id": str}, {"text": str})


CHECKS = {
    "setWebhook": _set_webhook,
    "sendMessage": _send_message,
    "sendPhoto": _send_photo,
    "answerCallbackQuery": _answer_callback_query,
}


def message_update(
    update_id: int, text: str, *, chat: int = 4242, user: int = 77, language: str = "en"
) -> dict[str, Any]:
    """An update carrying a private text message, as the Bot API documents it."""
    sender = {"id": user, "is_bot": False, "first_name": "Ada", "last_name": "Lovelace",
              "language_code": language}  # fmt: skip
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "from": sender,
            "chat": {"id": chat, "type": "private", "first_name": "Ada"},
            "date": 1_780_000_000,
            "text": text,
        },
    }


def click_update(update_id: int, data: str, *, chat: int = 4242, user: int = 77) -> dict[str, Any]:
    """An update carrying a click on an inline keyboard button."""
    sender = {"id": user, "is_bot": False, "first_name": "Ada", "language_code": "en"}
    return {
        "update_id": update_id,
        "callback_query": {
            "id": f"cq{update_id}",
            "from": sender,
            "message": {
                "message_id": 1,
                "date": 1_780_000_000,
                "chat": {"id": chat, "type": "private"},
            },
            "chat_instance": "-1",
            "data": data,
        },
    }
