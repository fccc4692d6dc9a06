"""The console's side of sign-in, as a browser follows it (tests/e2e/bot_api/signin): a
bot-api with an identity provider configured, its accounts and members, and the steps
through its sign-in routes."""

from dataclasses import dataclass
from typing import Any

import aiohttp
from yarl import URL

from shared.auth import AccountRepository, IssuedTokens
from shared.config import Config
from shared.console_sessions import SESSION_COOKIE
from support.oidc import authorize


@dataclass
class Console:
    url: str
    accounts: AccountRepository
    config: Config

    async def account(self, name: str) -> IssuedTokens:
        return await self.accounts.create(name)

    async def member(
        self, tokens: IssuedTokens, email: str, name: str, role: str = "editor", **more: Any
    ) -> str:
        """A member of the account, made by its owner through the API; their id."""
        body = {"email": email, "name": name, "role": role, **more}
        return str((await self.as_owner(tokens, "POST", "/account/members", body))["id"])

    async def as_owner(
        self, tokens: IssuedTokens, method: str, path: str, body: object = None
    ) -> Any:
        owner = {"Authorization": f"Bearer {tokens.developer_token}"}
        async with (
            aiohttp.ClientSession() as http,
            http.request(method, f"{self.url}{path}", json=body, headers=owner) as answer,
        ):
            assert answer.status in (200, 201, 204), await answer.text()
            return await answer.json() if answer.status != 204 else None


async def begin(http: aiohttp.ClientSession, console: Console) -> str:
    """The provider's authorization URL the console sends the browser to."""
    async with http.get(f"{console.url}/console/sign-in/start", allow_redirects=False) as started:
        assert started.status == 302
        return started.headers["Location"]


async def sign_in(http: aiohttp.ClientSession, console: Console, subject: str) -> str:
    """Signs in as `subject` at the provider; the callback URL the provider sent back."""
    callback = await authorize(http, await begin(http, console), subject)
    assert callback.startswith(f"{console.url}/console/sign-in/callback?")
    return callback


async def signed_in_as(
    http: aiohttp.ClientSession, console: Console, role: str, **more: Any
) -> tuple[IssuedTokens, str]:
    """A new account "acme" whose member Ada (the provider's "ada") of `role` is signed in
    in `http`; the account's tokens and her member id."""
    tokens = await console.account("acme")
    ada = await console.member(tokens, "ada@example.com", "Ada", role=role, **more)
    await follow(http, await sign_in(http, console, "ada"))
    return tokens, ada


async def follow(http: aiohttp.ClientSession, url: str) -> tuple[int, str, dict[str, str]]:
    async with http.get(url, allow_redirects=False) as answer:
        return answer.status, await answer.text(), dict(answer.headers)


def session_of(http: aiohttp.ClientSession, console: Console) -> str:
    cookies = http.cookie_jar.filter_cookies(URL(console.url))
    return cookies[SESSION_COOKIE].value if SESSION_COOKIE in cookies else ""


async def csrf_of(http: aiohttp.ClientSession, console: Console) -> str:
    async with http.get(f"{console.url}/console/session") as answer:
        assert answer.status == 200
        return str((await answer.json())["csrfToken"])
