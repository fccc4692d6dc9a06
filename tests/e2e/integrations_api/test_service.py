"""integrations-api stands on the same foundation: health, readiness, its own OpenAPI."""

from dataclasses import replace

from aiohttp.test_utils import TestClient
from openapi_spec_validator import validate

from integrations_api.app import create_app
from shared.config import Config


async def test_health_readiness_and_openapi(aiohttp_client: object, config: Config) -> None:
    client: TestClient = await aiohttp_client(create_app(config))  # type: ignore[operator]
    async with client.get("/healthz") as response:
        assert (response.status, await response.json()) == (200, {"status": "ok"})
    async with client.get("/readyz") as response:
        assert (await response.json())["checks"] == {"mongodb": "ok", "nats": "ok"}
    async with client.get("/openapi.json") as response:
        document = await response.json()
    validate(document)
    assert document["info"]["title"] == "Parley integrations-api"


async def test_errors_name_their_outcome_type(aiohttp_client: object, config: Config) -> None:
    client: TestClient = await aiohttp_client(create_app(config))  # type: ignore[operator]
    async with client.get("/v2/integrations/nothing-yet") as response:
        body = await response.json()
    assert response.status == 404
    assert body["status"]["type"] == "not_found"


async def test_the_console_origin_may_call_the_connection_api(
    aiohttp_client: object, config: Config
) -> None:
    console = "http://127.0.0.1:8080"
    app = create_app(replace(config, api_origins=(console,)))
    client: TestClient = await aiohttp_client(app)  # type: ignore[operator]
    for origin, allowed in ((console, True), ("https://elsewhere.example", False)):
        headers = {"Origin": origin, "Access-Control-Request-Method": "PUT"}
        async with client.options("/v2/integrations/webhook/x", headers=headers) as response:
            assert response.status == (204 if allowed else 403)
            assert (response.headers.get("Access-Control-Allow-Origin") == origin) is allowed
