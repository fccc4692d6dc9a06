"""What the browser tests share: the running stack and the steps every test takes."""

import asyncio
import os
import socket
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.sync_api import Page, expect

from shared.auth import IssuedTokens
from shared.config import Config

SCREENSHOTS = os.environ.get("PARLEY_SCREENSHOTS")  # a folder: refresh the docs' pictures


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(app: web.Application, port: int | None = None) -> Iterator[str]:
    """`app` on `port` (a free one by default) of loopback, run by an event loop of its own
    thread (Playwright's sync API holds the test's thread); yields its address and stops it
    on the way out."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def run(step: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(step, loop).result(timeout=10)

    runner = web.AppRunner(app)
    port = port or free_port()
    try:
        run(runner.setup())
        run(web.TCPSite(runner, "127.0.0.1", port).start())
        yield f"http://127.0.0.1:{port}"
    finally:
        run(runner.cleanup())
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


@dataclass
class Stack:
    bot_api: str
    integrations_api: str
    tokens: IssuedTokens
    config: Config


def screenshot(page: Page, name: str) -> None:
    """Saves a picture for docs/ when PARLEY_SCREENSHOTS names a folder."""
    if SCREENSHOTS:
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=True)


def loaded(page: Page) -> None:
    """Waits until the page has its data from the API (console/static/console/main.js)."""
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def sign_in(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.bot_api}/console/")
    page.get_by_label("Developer token").fill(stack.tokens.developer_token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{stack.bot_api}/console/stories")


def call(page: Page, stack: Stack, method: str, path: str, body: Any = None, base: str = "") -> Any:
    """The API with the developer token, outside the page, to set up what a test needs."""
    response = page.request.fetch(
        f"{base or stack.bot_api}{path}",
        method=method,
        data=body,
        headers={"Authorization": f"Bearer {stack.tokens.developer_token}"},
    )
    assert response.ok, (response.status, response.text())
    return response.json()


def welcome_of(page: Page, stack: Stack, story_id: str) -> str:
    interactions = call(page, stack, "GET", f"/stories/{story_id}/interactions")
    return next(str(item["id"]) for item in interactions if item["type"] == "welcome")
