"""Every route of both services, called with a token of every member role: the table
(shared/roles.py) has a row for each, the roles it allows are let through (neither 401
nor 403) and the others are refused with a 403; a public route answers a member as it
answers anyone."""

import re
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from integrations_api.app import create_app
from shared.auth import MEMBER_ROLES, Role
from shared.config import Config
from shared.roles import ROUTES
from support.api import Api, Tenant

SOME_ID = "0123456789abcdef01234567"
PARAMETER = re.compile(r"\{(\w+)[^}]*\}")
STATIC_FILE = {"/console/static": "/console/static/console.css"}


@pytest.fixture
async def integrations(aiohttp_client: Any, config: Config, bot_api: TestClient) -> TestClient:
    client: TestClient = await aiohttp_client(create_app(config))
    return client


def registered(app: web.Application) -> list[tuple[str, str]]:
    """(method, path pattern) of every route, HEAD left out (it is answered as GET)."""
    return sorted(
        {
            (route.method, route.resource.canonical)
            for route in app.router.routes()
            if route.resource is not None and route.method != "HEAD"
        }
    )


def path_of(pattern: str, story_id: str) -> str:
    if pattern in STATIC_FILE:
        return STATIC_FILE[pattern]
    return PARAMETER.sub(lambda m: story_id if m.group(1) == "story" else SOME_ID, pattern)


async def member_tokens(api: Api) -> dict[Role, str]:
    tokens = {}
    for role in MEMBER_ROLES:
        body = {"email": f"{role.value}@example.com", "name": role.value, "role": role.value}
        member = (await api.post("/account/members", body)).body
        issued = await api.post(f"/account/members/{member['id']}/tokens", {"name": "walk"})
        tokens[role] = issued.body["token"]
    return tokens


async def call(client: TestClient, method: str, path: str, token: str | None) -> int:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    sent = "PATCH" if method == "*" else method
    body = {} if sent in ("POST", "PUT", "PATCH") else None
    async with client.request(sent, path, json=body, headers=headers) as response:
        await response.read()
        return response.status


async def test_every_route_of_both_services_holds_each_role_to_its_row(
    bot_api: TestClient, integrations: TestClient, alice: Tenant
) -> None:
    api = alice.developer
    story_id = await api.create_story("Walk")
    tokens = await member_tokens(api)
    routes = [(bot_api, route) for route in registered(bot_api.server.app)]
    routes += [(integrations, route) for route in registered(integrations.server.app)]
    missing = sorted({route for _, route in routes} - set(ROUTES))
    assert not missing, f"routes without a row in shared/roles.py: {missing}"
    stale = sorted(set(ROUTES) - {route for _, route in routes})
    assert not stale, f"rows of shared/roles.py that match no route: {stale}"
    wrong = []
    for client, (method, pattern) in routes:
        access = ROUTES[(method, pattern)]
        path = path_of(pattern, story_id)
        anonymous = await call(client, method, path, None) if access.roles is None else None
        for role, token in tokens.items():
            status = await call(client, method, path, token)
            if access.roles is None:
                verdict = status == anonymous
            elif role in access.roles:
                verdict = status not in (401, 403)
            else:
                verdict = status == 403
            if not verdict:
                wrong.append((method, pattern, role.value, status))
    assert not wrong, wrong


def test_the_owner_may_call_every_route() -> None:
    """The developer token is the owner: a row without the owner would change what a
    SPEC client sees."""
    closed = [
        key for key, access in ROUTES.items() if access.roles and Role.OWNER not in access.roles
    ]
    assert not closed
