"""With MongoDB gone, bot-api answers 503 `unavailable` and /readyz says which."""

import dataclasses
from pathlib import Path

from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from shared.config import Config
from tools.embedded import start_mongo


async def test_a_stopped_database_answers_503_and_readyz_reports_it(
    aiohttp_client: object, config: Config, tmp_path: Path
) -> None:
    database = start_mongo("memory", tmp_path)
    try:
        own = dataclasses.replace(config, mongodb_url=database.url)
        client: TestClient = await aiohttp_client(create_app(own))  # type: ignore[operator]
        async with client.get("/readyz") as response:
            assert response.status == 200
            assert (await response.json())["checks"] == {"mongodb": "ok", "nats": "ok"}
    finally:
        database.stop()
    headers = {"Authorization": "Bearer pdt_anything"}
    async with client.get("/stories", headers=headers) as response:
        body = await response.json()
    assert response.status == 503
    assert body["status"]["errorType"] == "unavailable"
    async with client.get("/readyz") as response:
        assert response.status == 503
        assert (await response.json())["checks"]["mongodb"] == "unavailable"
