"""An account at each of three bot-api replicas (bench/stack.py `running_replicas`),
each called directly by its URL: what must hold whichever replica a request lands on
(docs/scaling.md "What holds across replicas, tested")."""

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

from bench.stack import Replicas, create_account
from shared.auth import IssuedTokens
from support.api import Api, Tenant
from support.metrics import sample


@asynccontextmanager
async def tenant_everywhere(replicas: Replicas, **limits: float) -> AsyncIterator[list[Tenant]]:
    """A new account with these limits of its own (by Config field name), and its
    clients at each replica (A, B, C)."""
    name = f"a{uuid.uuid4().hex[:12]}"
    tokens = await create_account(replicas.config, name, dict(limits))
    sessions = [aiohttp.ClientSession(base_url=url) for url in replicas.urls]
    try:
        yield [_tenant(session, tokens) for session in sessions]
    finally:
        for session in sessions:
            await session.close()


@asynccontextmanager
async def api_at(url: str, token: str) -> AsyncIterator[Api]:
    """A client of one process (integrations-api) holding `token`."""
    async with aiohttp.ClientSession(base_url=url) as session:
        yield Api(_client(session), token)


def _tenant(session: aiohttp.ClientSession, tokens: IssuedTokens) -> Tenant:
    client = _client(session)
    return Tenant(tokens, Api(client, tokens.developer_token), Api(client, tokens.public_key))


def _client(session: aiohttp.ClientSession) -> Any:
    """With a base URL, a session takes the calls Api makes of aiohttp's test client."""
    return session


async def metric(api: Api, name: str, **labels: str) -> float:
    """A sample of one replica's /metrics."""
    async with api.client.get("/metrics") as response:
        assert response.status == 200
        return sample(await response.text(), name, **labels)
