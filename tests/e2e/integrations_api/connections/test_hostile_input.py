"""Hostile bodies on the connection API get a 4xx in its envelope, cheaply, while
/healthz keeps answering (docs/reliability.md "HTTP input and the OpenAPI contract")."""

import io
import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from integrations_api.app import create_app
from shared.config import Config
from support.api import Tenant
from support.responsiveness import pinging

DEEP_LIST = b"[" * 1000 + b"]" * 1000
DEEP_OBJECT = b'{"name": ' + b'{"a": ' * 1000 + b"1" + b"}" * 1000 + b"}"
ANSWER_CAP_BYTES = 16 * 1024


@pytest.fixture
async def integrations(aiohttp_client: Any, config: Config, bot_api: TestClient) -> TestClient:
    client: TestClient = await aiohttp_client(create_app(config))
    return client


async def send(
    client: TestClient, method: str, path: str, data: bytes, token: str
) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    async with client.request(method, path, data=io.BytesIO(data), headers=headers) as answer:
        return answer.status, await answer.json()


async def test_json_nested_1000_deep_is_a_400_on_every_json_endpoint(
    integrations: TestClient, alice: Tenant
) -> None:
    story = await alice.developer.create_story()
    token = alice.tokens.developer_token
    created = {"storyId": story, "name": "Orders", "url": "https://hooks.test/o"}
    status, body = await send(
        integrations, "POST", "/v2/integrations/webhook", json.dumps(created).encode(), token
    )
    assert status == 201, body
    targets = [
        ("POST", "/v2/integrations/webhook"),
        ("PUT", f"/v2/integrations/webhook/{body['id']}"),
    ]
    for method, path in targets:
        for deep in (DEEP_LIST, DEEP_OBJECT):
            status, body = await send(integrations, method, path, deep, token)
            assert status == 400, (method, path, body)
            assert body["status"]["type"] == "bad_request"
            assert "nested deeper than" in body["status"]["errorDetails"]


async def test_a_connection_with_200k_bad_headers_is_refused_early_and_briefly(
    integrations: TestClient, alice: Tenant, request: pytest.FixtureRequest
) -> None:
    story = await alice.developer.create_story()
    headers = {f"h{i}": [i] for i in range(200_000)}
    created = {"storyId": story, "name": "x", "url": "https://hooks.test/o", "headers": headers}
    data = json.dumps(created).encode()
    async with pinging(f"http://{integrations.host}:{integrations.port}") as probes:
        status, body = await send(
            integrations,
            "POST",
            "/v2/integrations/webhook",
            data,
            alice.tokens.developer_token,
        )
    assert status == 400
    assert body["status"]["type"] == "bad_request"
    assert len(json.dumps(body)) < ANSWER_CAP_BYTES
    probes.assert_answered()
    request.node.user_properties.append(("healthz_p99_ms", round(probes.p99_ms, 1)))
