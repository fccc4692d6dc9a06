"""With MongoDB frozen (SIGSTOP), every request answers within its budget, and a create
retried with its `Idempotency-Key` is stored once (docs/reliability.md)."""

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from shared import messaging
from shared.config import Config
from shared.events import ChannelTurn, ChannelTurnReply, decode, encode
from shared.keys import ACCOUNTS
from support.responsiveness import healthz_probed
from tools.embedded import ServerProcess, start_mongo

BUDGET_SECONDS = 3.0
SLACK_SECONDS = 1.5  # the event loop of a loaded test machine
FROZEN_AT_MOST_SECONDS = 20


@contextlib.contextmanager
def frozen(server: ServerProcess) -> Iterator[None]:
    """The database process stopped, never longer than FROZEN_AT_MOST_SECONDS."""
    os.kill(server.process.pid, signal.SIGSTOP)
    resume = asyncio.get_running_loop().call_later(
        FROZEN_AT_MOST_SECONDS, os.kill, server.process.pid, signal.SIGCONT
    )
    try:
        yield
    finally:
        resume.cancel()
        os.kill(server.process.pid, signal.SIGCONT)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_mongo("memory", tmp_path)
    yield server
    os.kill(server.process.pid, signal.SIGCONT)
    server.stop()


@pytest.fixture
async def client(aiohttp_client: Any, config: Config, database: ServerProcess) -> TestClient:
    """bot-api on a database of its own, with a short budget."""
    own = dataclasses.replace(
        config, mongodb_url=database.url, request_budget_seconds=BUDGET_SECONDS
    )
    started: TestClient = await aiohttp_client(create_app(own))
    return started


async def test_every_request_answers_503_within_its_budget_while_the_database_is_frozen(
    client: TestClient, database: ServerProcess
) -> None:
    tokens = await client.app[ACCOUNTS].create("alice")
    auth = {"Authorization": f"Bearer {tokens.developer_token}"}
    async with client.post("/stories", json={"name": "S", "description": ""}, headers=auth) as r:
        story_id = (await r.json())["id"]
    query = {"sessionId": "s", "query": "hello", "storyId": story_id}
    requests = [
        ("GET", "/stories", None),
        ("POST", "/stories", {"name": "T", "description": ""}),
        ("GET", f"/stories/{story_id}", None),
        ("GET", f"/stories/{story_id}/interactions", None),
        ("POST", f"/stories/{story_id}/interactions", {"name": "I", "userSays": ["hi"]}),
        ("POST", "/entities", {"name": "size", "entries": []}),
        ("POST", "/query", query),
    ]

    async def timed(method: str, path: str, body: Any) -> tuple[str, int, float]:
        started = time.monotonic()
        async with client.request(method, path, json=body, headers=auth) as response:
            await response.read()
        return path, response.status, time.monotonic() - started

    with frozen(database):
        async with healthz_probed(client) as probe:
            answers = await asyncio.gather(*(timed(*request) for request in requests * 3))
    print(probe.report(f"database frozen, {len(answers)} requests"))
    print("slowest answer", max(seconds for _, _, seconds in answers))
    assert {status for _, status, _ in answers} == {503}
    assert max(seconds for _, _, seconds in answers) <= BUDGET_SECONDS + SLACK_SECONDS
    async with client.get("/stories", headers=auth) as response:
        assert response.status == 200  # and back once it thaws


async def test_a_create_answered_503_while_frozen_and_retried_with_its_key_is_stored_once(
    client: TestClient, database: ServerProcess
) -> None:
    tokens = await client.app[ACCOUNTS].create("alice")
    headers = {"Authorization": f"Bearer {tokens.developer_token}", "Idempotency-Key": "k-1"}
    story = {"name": "Retried", "description": ""}
    with frozen(database):
        async with client.post("/stories", json=story, headers=headers) as response:
            assert response.status == 503
    answers = []
    for _ in range(3):
        async with client.post("/stories", json=story, headers=headers) as response:
            assert response.status == 200
            answers.append(await response.json())
    assert answers[0] == answers[1] == answers[2]
    async with client.get("/stories", headers=headers) as response:
        listed = await response.json()
    assert [s["id"] for s in listed if s["name"] == "Retried"] == [answers[0]["id"]]


async def test_a_channel_turn_answers_503_within_its_budget_while_the_database_is_frozen(
    client: TestClient, database: ServerProcess, config: Config
) -> None:
    """A channel's turn comes over NATS, not HTTP, and has /query's budget all the same."""
    tokens = await client.app[ACCOUNTS].create("alice")
    auth = {"Authorization": f"Bearer {tokens.developer_token}"}
    async with client.post("/stories", json={"name": "S", "description": ""}, headers=auth) as r:
        story_id = (await r.json())["id"]
    turn = ChannelTurn(
        account_id=tokens.account_id,
        story_id=story_id,
        session_id="channel:chat:user",
        source="telegram",
        query="hello",
        trigger=None,
        goto=None,
        parameters={},
    )
    nats = await messaging.connect(config.nats_url, "frozen-database-test")
    try:
        with frozen(database):
            message = await nats.request(
                config.subjects.channel_turn, encode(turn), timeout=FROZEN_AT_MOST_SECONDS
            )
    finally:
        await nats.drain()
    reply = decode(ChannelTurnReply, message.data)
    assert reply.status == 503
    assert json.loads(reply.body)["status"]["type"] == "unavailable"
