"""Sign-in's setup step: nothing without an identity provider configured."""

from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web

from bot_api.keys import ACCOUNTS, CONFIG, CONSOLE_SESSIONS, DATABASE
from bot_api.signin.keys import SIGN_IN
from bot_api.signin.provider import Provider
from bot_api.signin.repository import SignInRepository
from bot_api.signin.service import SignInService
from bot_api.signin.verifier import IdTokenVerifier
from shared.auditing import AUDIT_LOG
from shared.keys import MONGO
from shared.members import MemberRepository


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The flow's use cases, with one HTTP client for the identity provider; the provider
    is first asked when someone signs in, so a provider down at start stops nothing."""
    config = app[CONFIG]
    if not config.oidc_issuer:
        yield
        return
    store = SignInRepository(app[DATABASE])
    await store.ensure_indexes()
    async with aiohttp.ClientSession() as http:
        provider = Provider(config, http)
        app[SIGN_IN] = SignInService(
            config=config,
            provider=provider,
            verifier=IdTokenVerifier(provider, config.oidc_client_id),
            store=store,
            members=MemberRepository(app[MONGO][config.accounts_database]),
            sessions=app[CONSOLE_SESSIONS],
            accounts=app[ACCOUNTS],
            audit=app[AUDIT_LOG],
        )
        yield
