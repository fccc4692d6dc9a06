"""The services' logs as a container writes them (LOG_FORMAT=json, LOG_LEVEL=DEBUG):
one JSON object a line, one line per request with its route template, status,
latency, request id and account; never a token, password, webhook secret or user
message; a normal stop logs no traceback."""

import asyncio
import base64
import contextlib
import json
import os
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bench.stack import create_account
from shared.auth import IssuedTokens
from shared.config import Config
from tools.embedded import ServerProcess, free_port, start_nats, start_service

NATS_USER = "parley"
Handler = Callable[[web.Request], Awaitable[web.Response]]
NATS_PASSWORD = f"nats-pw-{secrets.token_hex(8)}"


@pytest.fixture
def nats_with_password(tmp_path: Path) -> Iterator[str]:
    server = start_nats(tmp_path / "js", tmp_path, login=(NATS_USER, NATS_PASSWORD))
    yield server.url.replace("nats://", f"nats://{NATS_USER}:{NATS_PASSWORD}@")
    server.stop()


def logged_config(mongo_url: str, nats_url: str, **settings: Any) -> Config:
    """Both services on free ports, calling webhook backends on loopback."""
    return Config(
        mongodb_url=mongo_url,
        nats_url=nats_url,
        database_prefix=f"l{uuid.uuid4().hex[:12]}",
        bot_api_port=free_port(),
        integrations_api_port=free_port(),
        webhook_allow=("127.0.0.0/8",),
        **settings,
    )


@contextlib.asynccontextmanager
async def backend(handler: Handler) -> AsyncIterator[str]:
    """A webhook backend on loopback answering with `handler`: its /hook URL."""
    app = web.Application()
    app.router.add_post("/hook", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}/hook"
    finally:
        await runner.cleanup()


async def drive(bot: str, hooks: str, tokens: IssuedTokens, seeded: dict[str, str]) -> list[str]:
    """Use the API as a customer would, with the seeded values in it; the request ids."""
    developer = {"Authorization": f"Bearer {tokens.developer_token}"}
    public = {"Authorization": f"Bearer {tokens.public_key}"}
    request_ids = []

    async def echo(request: web.Request) -> web.Response:  # a backend that answers badly
        text = json.dumps(await request.json())
        return web.json_response({"responses": [{"type": text, "message": text}]})

    async with backend(echo) as hook_url, aiohttp.ClientSession() as http:

        async def call(
            method: str, url: str, headers: dict[str, str], body: Any, status: int = 200
        ) -> Any:
            async with http.request(method, url, headers=headers, json=body) as response:
                request_ids.append(response.headers["X-Request-Id"])
                assert response.status == status, await response.text()
                return await response.json()

        story = await call("POST", f"{bot}/stories", developer, {"name": "Logs", "description": ""})
        connection = await call(
            "POST",
            f"{hooks}/v2/integrations/webhook",
            developer,
            {
                "storyId": story["id"],
                "name": "Backend",
                "url": hook_url,
                "token": seeded["webhook secret"],
            },
            status=201,
        )
        await call(
            "POST",
            f"{bot}/stories/{story['id']}/interactions",
            developer,
            {
                "name": "Secret",
                "userSays": [seeded["user message"]],
                "responses": [{"type": "text", "messages": [seeded["bot answer"]]}],
                "webhook": connection["id"],
            },
        )
        await asyncio.sleep(1)  # the connection reaches bot-api over NATS
        for session in ("a", "b"):
            body = {"storyId": story["id"], "sessionId": session,
                    "query": seeded["user message"]}  # fmt: skip
            await call("POST", f"{bot}/query", public, body)
        refused = {"Authorization": "Bearer pdt_not-a-token"}
        await call("GET", f"{bot}/stories", refused, None, status=401)
    return request_ids


def test_logs_are_json_lines_with_one_line_per_request_and_no_secret(
    tmp_path: Path, mongo_url: str, nats_with_password: str
) -> None:
    config = logged_config(mongo_url, nats_with_password, log_level="DEBUG", log_format="json")
    tokens = asyncio.run(create_account(config, "logged"))
    seeded = {
        "developer token": tokens.developer_token,
        "public key": tokens.public_key,
        "NATS password": NATS_PASSWORD,
        "webhook secret": "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode(),
        "user message": f"my card number is {secrets.randbelow(10**12)}",
        "bot answer": f"noted {secrets.token_hex(6)}",
    }
    env = {**os.environ, **config.as_env()}
    services: list[ServerProcess] = []
    try:
        services.append(start_service("bot_api", config.bot_api_port, env, tmp_path))
        services.append(
            start_service("integrations_api", config.integrations_api_port, env, tmp_path)
        )
        request_ids = asyncio.run(drive(services[0].url, services[1].url, tokens, seeded))
    finally:
        for service in reversed(services):
            service.stop()
    assert [s.process.returncode for s in services] == [0, 0]

    lines = [line for service in services for line in service.log_path.read_text().splitlines()]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    for name, value in seeded.items():
        leaking = [line for line in lines if value in line]
        assert leaking == [], f"the {name} is in the log"
    assert not any("Traceback" in line for line in lines)
    assert any("webhook of interaction" in r["message"] for r in records)  # the bad answer

    requests = {r["request_id"]: r for r in records if r["logger"] == "parley.requests"}
    assert set(request_ids) <= set(requests), "a request has no line"
    queries = [r for r in requests.values() if r["route"] == "/query"]
    assert len(queries) == 2
    for query in queries:
        assert query["method"] == "POST" and query["status"] == 200
        assert query["account_id"] == tokens.account_id
        assert query["latency_ms"] > 0
    routes = {r["route"] for r in requests.values()}
    assert "/stories/{story}/interactions" in routes
    refused = [r for r in requests.values() if r["status"] == 401]
    assert [(r["route"], r["account_id"]) for r in refused] == [("/stories", None)]


FORGED = "2026-01-01 00:00:00,000 ERROR parley.requests forged line"


async def answer_with_a_forged_line(request: web.Request) -> web.Response:
    """An attribute whose key holds a line break and whose value is not text: the failure
    names the key."""
    return web.json_response({"attributes": {f"size\n{FORGED}\r\x1b[2J\u2028": 5}})


async def ask_through_a_bad_backend(bot: str, tokens: IssuedTokens) -> None:
    developer = {"Authorization": f"Bearer {tokens.developer_token}"}
    public = {"Authorization": f"Bearer {tokens.public_key}"}
    async with backend(answer_with_a_forged_line) as hook_url, aiohttp.ClientSession(bot) as http:
        story = {"name": "Forged", "description": ""}
        async with http.post("/stories", json=story, headers=developer) as response:
            story_id = (await response.json())["id"]
        hook = {"name": "Hook", "userSays": ["hello there"], "webhook": hook_url}
        async with http.post(
            f"/stories/{story_id}/interactions", json=hook, headers=developer
        ) as response:
            assert response.status == 200, await response.text()
        query = {"storyId": story_id, "sessionId": "s", "query": "hello there"}
        async with http.post("/query", json=query, headers=public) as response:
            assert response.status == 200, await response.text()


def test_a_text_log_line_cannot_be_forged_by_a_value_it_holds(
    tmp_path: Path, mongo_url: str, nats_url: str
) -> None:
    config = logged_config(mongo_url, nats_url, log_format="text")
    tokens = asyncio.run(create_account(config, "forged"))
    env = {**os.environ, **config.as_env()}
    service = start_service("bot_api", config.bot_api_port, env, tmp_path)
    try:
        asyncio.run(ask_through_a_bad_backend(service.url, tokens))
    finally:
        service.stop()
    lines = service.log_path.read_text().splitlines()
    assert not [line for line in lines if line.startswith(FORGED)]
    failure = [line for line in lines if "webhook of interaction" in line]
    assert len(failure) == 1
    assert f"size\\n{FORGED}\\r\\x1b[2J\\u2028" in failure[0]
