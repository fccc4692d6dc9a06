"""The widget on its demo page, and /query called from a page of another origin."""

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from support.browser import Stack, call, free_port, screenshot, welcome_of

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
    assert page.evaluate(f"localStorage.getItem('parley:session:{story_id}')")
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
