"""What the browser tests share: the running stack and the steps every test takes."""

import os
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page

from shared.auth import IssuedTokens
from shared.config import Config

SCREENSHOTS = os.environ.get("PARLEY_SCREENSHOTS")  # a folder: refresh the docs' pictures


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


def sign_in(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.bot_api}/console/")
    page.get_by_label("Developer token").fill(stack.tokens.developer_token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{stack.bot_api}/console/stories")
