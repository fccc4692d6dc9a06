"""The sign-in tests' identity provider (one a module: the people it knows persist) and a
bot-api that signs in with it."""

import dataclasses
from collections.abc import AsyncIterator, Iterator

import aiohttp
import pytest
from pytest_aiohttp import AiohttpClient

from bot_api.app import create_app
from shared.auth import AccountRepository
from shared.config import Config
from support.browser import free_port
from support.console_sign_in import Console
from support.oidc import CLIENT_ID, CLIENT_SECRET, add_person, browser, identity_provider


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    with identity_provider() as issuer:
        add_person(issuer, "ada", email="ada@example.com", email_verified=True, name="Ada L.")
        add_person(issuer, "eve", email="eve@example.com", email_verified=True)
        add_person(issuer, "una", email="ada@example.com", email_verified=False)
        yield issuer


@pytest.fixture
async def console(
    aiohttp_client: AiohttpClient, config: Config, issuer: str, accounts: AccountRepository
) -> Console:
    port = free_port()
    signing_in = dataclasses.replace(
        config,
        oidc_issuer=issuer,
        oidc_client_id=CLIENT_ID,
        oidc_client_secret=CLIENT_SECRET,
        console_url=f"http://127.0.0.1:{port}",
    )
    await aiohttp_client(create_app(signing_in), server_kwargs={"port": port})
    return Console(signing_in.console_url, accounts, signing_in)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with browser() as session:
        yield session
