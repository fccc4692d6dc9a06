"""A stand-in for Slack's Web API `chat.postMessage`, and Slack's signing of the
requests it sends an app.

Checked as Slack's reference documents them: the bot token in `Authorization:
Bearer`, a JSON body that names its charset (`application/json; charset=utf-8`) with
`channel` and `text` or `blocks` (at most 50), the Block Kit blocks a channel sends
(section, actions with buttons, image) with their limits, and `&`, `<`, `>` escaped in
every text Slack parses. Slack answers a refused call with HTTP 200 `{"ok": false,
"error": ...}`, and a rate-limited one with 429 and `Retry-After`.
"""

import hashlib
import hmac
import json
import re
import time
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

from support.platforms.standin import Problems, Recorded, StandIn

MESSAGE_FIELDS = {"channel", "text", "blocks", "thread_ts", "mrkdwn", "unfurl_links"}
UNESCAPED = re.compile(r"[<>]|&(?!amp;|lt;|gt;)")
"""Slack's control characters in a text it parses (a message's `text`, a mrkdwn text
object): `<!channel>`, `<@U…>` or `<https://…|…>` is markup, so a text Parley did not
write as markup must have `&`, `<` and `>` escaped. Slack cannot tell and would notify
or link: the stand-in refuses it, so a test sees it."""
JSON_WITH_CHARSET = re.compile(r"^application/json\s*;\s*charset=utf-8$", re.IGNORECASE)
CHANNEL = "C2147483705"
USER = "U2147483697"
"""The conversation and the user of the calls below (Slack's examples)."""


def message_event(event_id: str, text: str = "Hi", **event: Any) -> bytes:
    """An Events API call carrying USER's message in CHANNEL (`event` changes or adds
    its fields), as Slack documents it."""
    message = {"type": "message", "channel": CHANNEL, "user": USER, "text": text,
               "ts": "1355517523.000005", "channel_type": "channel"}  # fmt: skip
    body = {"type": "event_callback", "team_id": "T061EG9R6", "event_id": event_id,
            "event_time": 1355517523, "event": {**message, **event}}  # fmt: skip
    return json.dumps(body).encode()


def click(trigger_id: str, **action: Any) -> bytes:
    """An interactivity call (form-encoded `payload=`) carrying USER's click in CHANNEL on
    a button with `action`'s fields (its `value`, or a link's `url`)."""
    payload = {
        "type": "block_actions",
        "trigger_id": trigger_id,
        "user": {"id": USER, "username": "ada"},
        "channel": {"id": CHANNEL, "name": "pizza"},
        "actions": [{"type": "button", "action_id": "parley-0", "block_id": "b1", **action}],
    }
    return urlencode({"payload": json.dumps(payload)}).encode()


def signed_headers(
    signing_secret: str, body: bytes, timestamp: int | None = None
) -> dict[str, str]:
    """The headers Slack sends with a request to an app: the timestamp, and the v0
    signature of `v0:<timestamp>:<body>` (HMAC-SHA256 with the signing secret)."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    base = f"v0:{stamp}:".encode() + body
    signature = hmac.new(signing_secret.encode(), base, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={signature}"}


def message_problems(body: Any) -> tuple[str, list[str]]:
    """Slack's error code and what is wrong with a chat.postMessage body; ("", [])
    when Slack takes it."""
    problems = Problems()
    message = problems.keys("body", body, MESSAGE_FIELDS)
    if problems.found:
        return "invalid_arguments", problems.found
    if not isinstance(message.get("channel"), str) or not message["channel"]:
        return "channel_not_found", ["channel: required"]
    if "text" not in message and "blocks" not in message:
        return "no_text", ["text or blocks: required"]
    problems.text("text", message.get("text"), 40_000, required="blocks" not in message)
    _escaped(problems, "text", message.get("text"))
    if problems.found:
        return "invalid_arguments", problems.found
    if "blocks" in message:
        for index, block in enumerate(problems.items("blocks", message["blocks"], 1, 50)):
            _block_problems(problems, f"blocks[{index}]", block)
    return ("invalid_blocks", problems.found) if problems.found else ("", [])


def _block_problems(problems: Problems, where: str, block: Any) -> None:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "section":
        section = problems.keys(where, block, {"type", "text", "accessory", "block_id"})
        _text_object(problems, f"{where}.text", section.get("text"), 3000, {"plain_text", "mrkdwn"})
        if "accessory" in section:
            accessory = section["accessory"]
            if isinstance(accessory, dict) and accessory.get("type") == "image":
                _image(problems, f"{where}.accessory", accessory)
            else:
                _button(problems, f"{where}.accessory", accessory)
    elif kind == "actions":
        actions = problems.keys(where, block, {"type", "elements", "block_id"})
        elements = problems.items(f"{where}.elements", actions.get("elements"), 1, 25)
        for index, element in enumerate(elements):
            _button(problems, f"{where}.elements[{index}]", element)
        ids = [element.get("action_id") for element in elements if isinstance(element, dict)]
        problems.distinct(f"{where}.elements[].action_id", [i for i in ids if i is not None])
    elif kind == "image":
        _image(
            problems,
            where,
            problems.keys(where, block, {"type", "image_url", "alt_text", "title", "block_id"}),
        )
    else:
        problems.add(f"{where}.type", f"{kind!r} is not a block a channel sends")


def _text_object(problems: Problems, where: str, value: Any, limit: int, kinds: set[str]) -> None:
    text = problems.keys(where, value, {"type", "text", "emoji", "verbatim"})
    if text.get("type") not in kinds:
        problems.add(f"{where}.type", f"one of {sorted(kinds)}")
    if "emoji" in text and text.get("type") != "plain_text":
        problems.add(f"{where}.emoji", "only for plain_text")
    problems.text(f"{where}.text", text.get("text"), limit)
    if text.get("type") == "mrkdwn":
        _escaped(problems, f"{where}.text", text.get("text"))


def _escaped(problems: Problems, where: str, text: Any) -> None:
    if isinstance(text, str) and (unescaped := UNESCAPED.search(text)):
        problems.add(where, f"unescaped {unescaped.group()!r} (Slack reads it as markup)")


def _image(problems: Problems, where: str, image: dict[str, Any]) -> None:
    problems.keys(where, image, {"type", "image_url", "alt_text", "title", "block_id"})
    problems.web_address(f"{where}.image_url", image.get("image_url"), 3000)
    problems.text(f"{where}.alt_text", image.get("alt_text"), 2000)


def _button(problems: Problems, where: str, value: Any) -> None:
    button = problems.keys(where, value, {"type", "text", "action_id", "value", "url", "style"})
    if button.get("type") != "button":
        problems.add(f"{where}.type", "not a button")
    _text_object(problems, f"{where}.text", button.get("text"), 75, {"plain_text"})
    problems.text(f"{where}.action_id", button.get("action_id"), 255, required=False)
    problems.text(f"{where}.value", button.get("value"), 2000, required=False)
    if "url" in button:
        problems.web_address(f"{where}.url", button["url"], 3000)


class SlackStandIn(StandIn):
    """Slack's Web API for one bot token; `app()` to serve it."""

    def __init__(self, bot_token: str) -> None:
        super().__init__()
        self.bot_token = bot_token

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/api/chat.postMessage", self.post_message)
        return app

    async def post_message(self, request: web.Request) -> web.Response:
        if self.take_busy():
            headers = {"Retry-After": str(self.retry_after_seconds)}
            return web.json_response(
                {"ok": False, "error": "ratelimited"}, status=429, headers=headers
            )
        authorization = request.headers.get("Authorization", "")
        if not authorization.startswith("Bearer "):
            return web.json_response({"ok": False, "error": "not_authed"})
        if authorization != f"Bearer {self.bot_token}":
            return web.json_response({"ok": False, "error": "invalid_auth"})
        if request.content_type != "application/json":
            return web.json_response({"ok": False, "error": "invalid_form_data"})
        body = await request.json()
        recorded = Recorded(request.path, dict(request.headers), body)
        error, problems = message_problems(body)
        if not JSON_WITH_CHARSET.match(request.headers.get("Content-Type", "")):
            # Slack takes the call with a `missing_charset` warning: the stand-in refuses
            # it, so that a test sees it
            error, problems = "missing_charset", [*problems, "Content-Type: no charset=utf-8"]
        if error:
            self.refused.append((recorded, problems))
            metadata = {"messages": [f"[ERROR] {problem}" for problem in problems]}
            return web.json_response({"ok": False, "error": error, "response_metadata": metadata})
        self.accepted.append(recorded)
        ts = f"{time.time():.6f}"
        message = {"type": "message", "ts": ts, "text": body.get("text", "")}
        return web.json_response(
            {"ok": True, "channel": body["channel"], "ts": ts, "message": message}
        )
