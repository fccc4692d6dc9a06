"""The default limits against real use (issue 17): an import script at full speed and a
burst of visitors opening the chat are never refused, while a runaway loop and one
visitor hammering are. Verdicts count refusals, never latencies."""

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api, Reply

IMPORTED = 300
IMPORT_CONCURRENCY = 4
VISITORS = 50
RUNAWAY_CONCURRENCY = 16
RUNAWAY_CAP = 3000


def with_default_limits(config: Config) -> Config:
    """`config` with every rate limit at its default (the test config turns them off)."""
    rates = {
        field.name: field.default
        for field in dataclasses.fields(Config)
        if field.name.endswith(("_rate", "_burst"))
    }
    return dataclasses.replace(config, **rates)


@pytest.fixture
async def defaults(aiohttp_client: Any, config: Config) -> TestClient:
    client: TestClient = await aiohttp_client(create_app(with_default_limits(config)))
    return client


async def test_an_import_script_at_full_speed_is_never_refused(
    defaults: TestClient, accounts: AccountRepository, request: pytest.FixtureRequest
) -> None:
    developer = Api(defaults, (await accounts.create("importer")).developer_token)
    story_id = await developer.create_story()
    pending = list(range(IMPORTED))

    async def worker() -> list[int]:
        statuses = []
        while pending:
            number = pending.pop()
            body = {"name": f"Question {number}", "userSays": [f"question number {number}"]}
            statuses.append(
                (await developer.post(f"/stories/{story_id}/interactions", body)).status
            )
        return statuses

    started = time.monotonic()
    statuses = [
        s
        for batch in await asyncio.gather(*[worker() for _ in range(IMPORT_CONCURRENCY)])
        for s in batch
    ]
    seconds = time.monotonic() - started
    request.node.user_properties.append(("import_refused", statuses.count(429)))
    request.node.user_properties.append(("import_seconds", round(seconds, 2)))
    assert statuses == [200] * IMPORTED


async def test_a_runaway_loop_is_stopped(
    defaults: TestClient, accounts: AccountRepository, request: pytest.FixtureRequest
) -> None:
    """Far beyond any script: it is refused once past the burst, and what it gets through
    is never more than the bucket gives (burst + rate x time)."""
    limits = with_default_limits(Config(mongodb_url="", nats_url=""))
    developer = Api(defaults, (await accounts.create("looper")).developer_token)
    statuses: list[int] = []

    async def loop() -> None:
        while 429 not in statuses and len(statuses) < RUNAWAY_CAP:
            statuses.append((await developer.get("/stories")).status)

    started = time.monotonic()
    await asyncio.gather(*[loop() for _ in range(RUNAWAY_CONCURRENCY)])
    seconds = time.monotonic() - started
    request.node.user_properties.append(("runaway_accepted", statuses.count(200)))
    assert 429 in statuses
    assert statuses.count(200) <= limits.management_burst + limits.management_rate * seconds


def visitor(public: Api, number: int) -> Callable[[dict[str, Any]], Awaitable[Reply]]:
    """A visitor of a page embedding the bot: its own session and address."""
    headers = {"X-Forwarded-For": f"203.0.113.{number}"}

    async def send(body: dict[str, Any]) -> Reply:
        return await public.call("POST", "/query", {"sessionId": f"s{number}", **body}, headers)

    return send


async def _visit(public: Api, story_id: str, number: int) -> list[Reply]:
    """A visitor opening the chat: the welcome turn, then a first question."""
    send = visitor(public, number)
    turns = [{"trigger": "welcome"}, {"query": "hello"}]
    return [await send({"storyId": story_id, **turn}) for turn in turns]


async def test_fifty_visitors_opening_the_chat_at_once_are_never_refused(
    defaults: TestClient, accounts: AccountRepository, request: pytest.FixtureRequest
) -> None:
    tokens = await accounts.create("shop")
    story_id = await Api(defaults, tokens.developer_token).create_story()
    public = Api(defaults, tokens.public_key)

    visits = await asyncio.gather(*[_visit(public, story_id, v) for v in range(VISITORS)])
    statuses = [reply.status for visit in visits for reply in visit]
    request.node.user_properties.append(("visitors_refused", statuses.count(429)))
    assert statuses == [200] * (2 * VISITORS)


async def test_one_visitor_hammering_is_limited_without_affecting_another(
    defaults: TestClient, accounts: AccountRepository
) -> None:
    tokens = await accounts.create("shop")
    story_id = await Api(defaults, tokens.developer_token).create_story()
    public = Api(defaults, tokens.public_key)
    hammering, other = visitor(public, 1), visitor(public, 2)

    in_one_session = [
        (await hammering({"storyId": story_id, "query": "hi"})).status for _ in range(40)
    ]
    assert 429 in in_one_session
    headers = {"X-Forwarded-For": "203.0.113.1"}
    new_sessions = [
        (
            await public.call(
                "POST", "/query", {"sessionId": f"new{n}", "storyId": story_id}, headers
            )
        )
        for n in range(100)
    ]
    refused = new_sessions[-1]
    assert refused.error == (429, "rate_limited") and "address" in refused.details
    assert int(refused.headers["Retry-After"]) >= 1

    assert [(await other({"storyId": story_id, "query": "hi"})).status for _ in range(5)] == [
        200
    ] * 5


async def test_a_backend_with_the_developer_token_is_not_limited_as_one_visitor(
    defaults: TestClient, accounts: AccountRepository
) -> None:
    """A team's server asking /query for its users from one address (here in one
    session, as a CI script does): 50 at once are all answered, where a visitor's
    address allows a burst of 30 and its session 10."""
    developer = Api(defaults, (await accounts.create("backend")).developer_token)
    story_id = await developer.create_story()
    body = {"sessionId": "ci", "storyId": story_id, "query": "hello"}

    replies = await asyncio.gather(*[developer.post("/query", body) for _ in range(50)])

    assert [reply.status for reply in replies] == [200] * 50
