"""The request budget (shared/budget.py): the service's for every request, and a longer
one an endpoint declares for work a client asks for and waits on."""

import asyncio
import dataclasses
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient

from shared.config import Config
from shared.endpoints import endpoint
from shared.service import new_app

BUDGET = 0.05
WORK = 0.3
"""The work outlasts the service's budget six times over, and the endpoint's own by far."""


@endpoint(summary="work within the service's budget", tag="t", auth=None)
async def plain(request: web.Request) -> dict[str, str]:
    await asyncio.sleep(WORK)
    return {"done": "yes"}


@endpoint(summary="work with a budget of its own", tag="t", auth=None, budget_seconds=30)
async def long_work(request: web.Request) -> dict[str, str]:
    await asyncio.sleep(WORK)
    return {"done": "yes"}


async def test_an_endpoint_s_own_budget_outlasts_the_service_s(aiohttp_client: Any) -> None:
    config = Config(mongodb_url="", nats_url="")
    app = new_app(dataclasses.replace(config, request_budget_seconds=BUDGET), status_field="s")
    app.router.add_get("/plain", plain)
    app.router.add_get("/long", long_work)
    client: TestClient = await aiohttp_client(app)
    refused = await client.get("/plain")
    assert refused.status == 503
    assert (await refused.json())["status"]["s"] == "unavailable"
    answered = await client.get("/long")
    assert answered.status == 200 and await answered.json() == {"done": "yes"}
