"""The widget on its demo page, and /query called from a page of another origin."""

import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from support.browser import Stack, call, free_port, loaded, screenshot, sign_in, welcome_of

UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"

WELCOME = [
    {"type": "text", "messages": ["Hello from the {{default_source}}!"]},
    {"type": "quickReply", "title": "What now?", "replies": ["Menu"]},
]


def widget_story(page: Page, stack: Stack) -> str:
    story_id = str(call(page, stack, "POST", "/stories", {"name": "Shop", "description": ""})["id"])
    welcome = welcome_of(page, stack, story_id)
    call(page, stack, "PUT", f"/stories/{story_id}/interactions/{welcome}", {"responses": WELCOME})
    menu = {"name": "Menu", "userSays": ["menu"], "responses": [
        {"type": "text", "messages": ["Pizza or pasta?"]}]}  # fmt: skip
    call(page, stack, "POST", f"/stories/{story_id}/interactions", menu)
    return story_id


def test_the_widget_greets_fills_the_defaults_and_answers_a_quick_reply(
    page: Page, stack: Stack
) -> None:
    story_id = widget_story(page, stack)
    page.goto(f"{stack.bot_api}/chat/{story_id}?key={stack.tokens.public_key}")
    page.get_by_role("button", name="Chat").click()
    log = page.locator(".parley-log")
    expect(log).to_contain_text("Hello from the widget!")
    log.get_by_role("button", name="Menu").click()
    expect(log.locator(".parley-user")).to_have_text("Menu")
    expect(log).to_contain_text("Pizza or pasta?")
    session = page.evaluate(f"localStorage.getItem('parley:session:{story_id}')")
    assert re.fullmatch(UUID4, session), session  # 122 random bits: no one guesses another's
    screenshot(page, "widget")


SEND_AT_ONCE = 12
"""Messages sent in one go: past the session's burst of 10 (QUERY_SESSION_BURST)."""

SEND_ALL = """(count) => {
  const form = document.querySelector(".parley-form");
  for (let n = 0; n < count; n++) {
    form.querySelector("input").value = "menu";
    form.requestSubmit();
  }
}"""


def test_the_widget_waits_out_a_429_and_never_shows_it(page: Page, stack: Stack) -> None:
    story_id = widget_story(page, stack)
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if r.url.endswith("/query") else None)
    page.goto(f"{stack.bot_api}/chat/{story_id}?key={stack.tokens.public_key}")
    page.get_by_role("button", name="Chat").click()
    log = page.locator(".parley-log")
    expect(log).to_contain_text("Hello from the widget!")

    page.evaluate(SEND_ALL, SEND_AT_ONCE)
    expect(log.get_by_text("Pizza or pasta?")).to_have_count(SEND_AT_ONCE, timeout=30_000)
    assert 429 in statuses
    expect(log.locator(".parley-error")).to_have_count(0)


def test_the_widget_shows_visitors_no_developer_error(page: Page, stack: Stack) -> None:
    story_id = widget_story(page, stack)
    page.goto(f"{stack.bot_api}/chat/{story_id}?key=ppk_not-a-key")
    page.get_by_role("button", name="Chat").click()
    error = page.locator(".parley-log .parley-error")
    expect(error).to_have_text("Sorry, the chat is not available right now.")


@pytest.fixture
def other_origin(tmp_path: Path) -> Iterator[str]:
    """A page served from another origin (another port of loopback)."""
    (tmp_path / "index.html").write_text("<!doctype html><title>A shop</title><p>A shop</p>")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.terminate()
    server.wait(10)


CROSS_ORIGIN_CALLS = """async ([api, key, token, story]) => {
  const query = await fetch(api + "/query", {
    method: "POST",
    headers: {Authorization: "Bearer " + key, "Content-Type": "application/json"},
    body: JSON.stringify({sessionId: "shop", storyId: story, trigger: "welcome"}),
  }).then((r) => r.json()).then((b) => b.result.fulfillment[0].message, (e) => "blocked");
  const management = await fetch(api + "/stories", {headers: {Authorization: "Bearer " + token}})
    .then((r) => "readable", (e) => "blocked");
  return {query, management};
}"""


def test_a_page_of_another_origin_may_query_but_not_manage(
    page: Page, stack: Stack, other_origin: str
) -> None:
    story_id = widget_story(page, stack)
    page.goto(other_origin)
    tokens = stack.tokens
    outcome = page.evaluate(
        CROSS_ORIGIN_CALLS, [stack.bot_api, tokens.public_key, tokens.developer_token, story_id]
    )
    assert outcome == {"query": "Hello from the!", "management": "blocked"}


LINKS = {
    "responses": [
        {
            "type": "buttons",
            "title": "Where to?",
            "delay": 100,
            "buttons": [
                {"type": "url", "title": "Evil", "value": "javascript:alert(document.cookie)"},
                {"type": "webview", "title": "Data", "value": "data:text/html,<script>1</script>"},
                {"type": "url", "title": "Docs", "value": "https://example.com/docs"},
                {"type": "url", "title": "Mail", "value": "mailto:shop@example.com"},
                {"type": "phone", "title": "Call", "value": "+4930123456"},
            ],
        }
    ]
}


class _Answers(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps(LINKS).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def link_backend() -> Iterator[str]:
    """A webhook on loopback whose answer carries buttons of every link type."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()
    server.server_close()


def expect_only_safe_links(log: Locator) -> None:
    safe = {"Docs": "https://example.com/docs", "Mail": "mailto:shop@example.com"}
    for name, href in {**safe, "Call": "tel:+4930123456"}.items():
        expect(log.get_by_role("link", name=name)).to_have_attribute("href", href)
    for unsafe in ("Evil", "Data"):  # left out by bot-api (docs/webhooks.md), never a link
        expect(log.get_by_text(unsafe, exact=True)).to_have_count(0)
    assert log.evaluate("log => [...log.querySelectorAll('a')].map(a => a.protocol)") == [
        "https:", "mailto:", "tel:"]  # fmt: skip


def test_only_web_mail_and_phone_links_of_a_webhook_answer_become_links(
    page: Page, stack: Stack, link_backend: str
) -> None:
    story_id = widget_story(page, stack)
    hooked = {"name": "Where", "userSays": ["where to go"], "webhook": link_backend}
    call(page, stack, "POST", f"/stories/{story_id}/interactions", hooked)

    page.goto(f"{stack.bot_api}/chat/{story_id}?key={stack.tokens.public_key}")
    page.get_by_role("button", name="Chat").click()
    widget = page.locator(".parley-log")
    expect(widget).to_contain_text("Hello from the widget!")
    page.get_by_label("Your message").fill("where to go")
    page.get_by_role("button", name="Send").click()
    expect(widget).to_contain_text("Where to?")
    expect_only_safe_links(widget)

    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    page.get_by_label("Message", exact=True).fill("where to go")
    page.get_by_role("button", name="Send", exact=True).click()
    test_chat = page.locator("#chat-log")
    expect(test_chat).to_contain_text("Where to?")
    expect_only_safe_links(test_chat)
