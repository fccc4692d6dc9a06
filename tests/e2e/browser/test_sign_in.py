"""Signing in to the console in headless Chromium through a real local identity provider
(oidc-provider-mock): its page, a story made with the session cookie, sign-out of the
console and of the provider (docs/teams.md "Sign-in").

bot-api runs in this process, on a thread of its own, on a port chosen before it starts:
the console's URL, which the provider sends the browser back to, names it."""

import asyncio
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect
from pymongo import MongoClient

from bot_api.app import create_app
from integrations_api.app import create_app as create_integrations_api
from shared import mongo
from shared.auth import AccountRepository, IssuedTokens, Role
from shared.config import Config
from shared.console_sessions import SESSION_COOKIE
from shared.members import MemberFields, MemberRepository
from support.browser import free_port, loaded, screenshot, serving
from support.oidc import CLIENT_ID, CLIENT_SECRET, add_person, identity_provider


@dataclass
class Console:
    url: str
    tokens: IssuedTokens
    integrations: str


async def _account(config: Config) -> IssuedTokens:
    """An account with Ada as its editor."""
    client = mongo.open_client(config.mongodb_url)
    try:
        database = client[config.accounts_database]
        accounts = AccountRepository(database)
        await accounts.ensure_indexes()
        tokens = await accounts.create("acme")
        ada = MemberFields("ada@example.com", "Ada L.", Role.EDITOR)
        await MemberRepository(database).create(tokens.account_id, ada)
        return tokens
    finally:
        await client.close()


@pytest.fixture(scope="module")
def console(mongo_url: str, nats_url: str) -> Iterator[Console]:
    port, integrations_port = free_port(), free_port()
    with identity_provider() as issuer:
        add_person(issuer, "ada", email="ada@example.com", email_verified=True, name="Ada L.")
        config = Config(
            mongodb_url=mongo_url,
            nats_url=nats_url,
            database_prefix=f"t{uuid.uuid4().hex[:12]}",
            semantic_matching=False,
            management_rate=0.0,
            oidc_issuer=issuer,
            oidc_client_id=CLIENT_ID,
            oidc_client_secret=CLIENT_SECRET,
            console_url=f"http://127.0.0.1:{port}",
            # integrations-api on an origin of its own, as under `make run`
            console_integrations_url=f"http://127.0.0.1:{integrations_port}",
            api_origins=(f"http://127.0.0.1:{port}",),
        )
        with ThreadPoolExecutor(1) as thread:  # Playwright's sync API may hold this loop
            tokens = thread.submit(asyncio.run, _account(config)).result()
        integrations_api = create_integrations_api(config)
        with (
            serving(create_app(config), port) as url,
            serving(integrations_api, integrations_port) as integrations,
        ):
            yield Console(url, tokens, integrations)
        with MongoClient(mongo_url) as client:
            databases = (config.accounts_database, config.bot_database)
            for name in (*databases, config.integrations_database):
                client.drop_database(name)


CALL_INTEGRATIONS = """async () => {
  const api = await import("/console/static/console/api.js");
  const base = document.body.dataset.integrations;
  const listed = (await api.everything(api.CONNECTIONS, { base })).length;
  try {
    await api.integrations("POST", "", {});
    return { listed, refusedWith: null };
  } catch (error) {
    return { listed, refusedWith: error.status };
  }
}"""


def test_sign_in_with_the_provider_make_a_story_and_sign_out(page: Page, console: Console) -> None:
    page.goto(f"{console.url}/console/")
    page.get_by_role("link", name="Sign in with your identity provider").click()
    page.locator("input[name=sub]").fill("ada")  # the provider's own page
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{console.url}/console/stories")
    loaded(page)
    screenshot(page, "signed-in")
    assert page.evaluate("sessionStorage.length") == 0, "no token is kept by the page"
    cookie = next(c for c in page.context.cookies() if c["name"] == SESSION_COOKIE)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert cookie["value"] not in page.content()

    # integrations-api, on another origin, takes the cookie and the CSRF token too
    answers = page.evaluate(CALL_INTEGRATIONS)
    assert answers == {"listed": 0, "refusedWith": 400}, "a 403 would be the CSRF check"

    page.locator("#new-story-name").fill("Pizza")
    page.get_by_role("button", name="Create story").click()
    expect(page.locator("#story-title")).to_have_text("Pizza")

    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="End session").click()  # the provider's own page
    page.wait_for_url(f"{console.url}/console/")
    expect(page.get_by_role("link", name="Sign in with your identity provider")).to_be_visible()
    assert SESSION_COOKIE not in [c["name"] for c in page.context.cookies()]
    kept = {"Cookie": f"{SESSION_COOKIE}={cookie['value']}"}
    assert page.request.get(f"{console.url}/stories", headers=kept).status == 401
    page.goto(f"{console.url}/console/stories")  # signed out, the console sends one back
    page.wait_for_url(f"{console.url}/console/")


def test_a_developer_token_still_signs_in_beside_the_provider(page: Page, console: Console) -> None:
    page.goto(f"{console.url}/console/")
    page.get_by_text("Sign in with a developer token").click()
    page.get_by_label("Developer token").fill(console.tokens.developer_token)
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(f"{console.url}/console/stories")
    loaded(page)
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
