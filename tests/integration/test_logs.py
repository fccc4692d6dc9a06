"""The services' logs as a container writes them (LOG_FORMAT=json, LOG_LEVEL=DEBUG):
one JSON object a line, one line per request with its route template, status,
latency, request id and account; never a token, password, webhook secret or user
message; a normal stop logs no traceback."""

import asyncio
import base64
import json
import os
import secrets
import uuid
from collections.abc import Iterator
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
NATS_PASSWORD = f"nats-pw-{secrets.token_hex(8)}"


@pytest.fixture
def nats_with_password(tmp_path: Path) -> Iterator[str]:
    server = start_nats(tmp_path / "js", tmp_path, login=(NATS_USER, NATS_PASSWORD))
    yield server.url.replace("nats://", f"nats://{NATS_USER}:{NATS_PASSWORD}@")
    server.stop()


async def drive(bot: str, hooks: str, tokens: IssuedTokens, seeded: dict[str, str]) -> list[str]:
    """Use the API as a customer would, with the seeded values in it; the request ids."""
    developer = {"Authorization": f"Bearer {tokens.developer_token}"}
    public = {"Authorization": f"Bearer {tokens.public_key}"}
    request_ids = []

    async def echo(request: web.Request) -> web.Response:  # a backend that answers badly
        text = json.dumps(await request.json())
        return web.json_response({"responses": [{"type": text, "message": text}]})

    backend = web.Application()
    backend.router.add_post("/hook", echo)
    runner = web.AppRunner(backend, access_log=None)
    await runner.setup()
    backend_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", backend_port).start()
    try:
        async with aiohttp.ClientSession() as http:

            async def call(
                method: str, url: str, headers: dict[str, str], body: Any, status: int = 200
            ) -> Any:
                async with http.request(method, url, headers=headers, json=body) as response:
                    request_ids.append(response.headers["X-Request-Id"])
                    assert response.status == status, await response.text()
                    return await response.json()

            story = await call(
                "POST", f"{bot}/stories", developer, {"name": "Logs", "description": ""}
            )
            connection = await call(
                "POST",
                f"{hooks}/v2/integrations/webhook",
                developer,
                {
                    "storyId": story["id"],
                    "name": "Backend",
                    "url": f"http://127.0.0.1:{backend_port}/hook",
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
    finally:
        await runner.cleanup()
    return request_ids


def test_logs_are_json_lines_with_one_line_per_request_and_no_secret(
    tmp_path: Path, mongo_url: str, nats_with_password: str
) -> None:
    config = Config(
        mongodb_url=mongo_url,
        nats_url=nats_with_password,
        database_prefix=f"l{uuid.uuid4().hex[:12]}",
        bot_api_port=free_port(),
        integrations_api_port=free_port(),
        webhook_allow=("127.0.0.0/8",),
        log_level="DEBUG",
        log_format="json",
    )
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
