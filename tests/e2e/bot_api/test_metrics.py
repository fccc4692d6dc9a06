"""/metrics of bot-api and integrations-api: requests by route template, /query outcomes
and scores, webhook deliveries, the story cache, events; MongoDB errors."""

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from integrations_api.app import create_app as create_integrations_app
from shared.config import Config
from support.api import Api, Tenant
from support.metrics import sample
from tools.embedded import start_mongo


async def metrics_page(client: TestClient) -> str:
    async with client.get("/metrics") as response:
        assert response.status == 200
        assert response.content_type == "text/plain"
        return await response.text()


async def test_query_outcomes_scores_requests_and_the_story_cache_are_counted(
    alice: Tenant, api: Api
) -> None:
    story_id = await api.create_story()
    pizza = await api.create_interaction(
        story_id, "Pizza", userSays=["i want a pizza"], responses=[]
    )
    public = alice.public
    before = await metrics_page(api.client)
    for body in (
        {"query": "i want a pizza"},
        {"query": "what is the weather on mars"},
        {"trigger": "welcome"},
        {"goto": pizza},
        {"query": "i want a pizza"},
    ):
        await public.ok("POST", "/query", {"sessionId": "m", "storyId": story_id, **body})
    after = await metrics_page(api.client)

    def delta(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    outcomes = {
        o: delta("parley_query_outcomes_total", outcome=o)
        for o in ("matched", "fallback", "trigger", "goto", "incomplete")
    }
    assert outcomes == {"matched": 2, "fallback": 1, "trigger": 1, "goto": 1, "incomplete": 0}
    assert delta("parley_query_match_score_count") == 3  # the three messages
    assert delta("parley_query_match_score_bucket", le="0.4") >= 1  # the weather
    assert delta("parley_query_match_score_sum") >= 2  # two exact matches score 1
    route = {"method": "POST", "route": "/query", "status": "200"}
    assert delta("parley_http_requests_total", **route) == 5
    assert delta("parley_http_request_seconds_count", method="POST", route="/query") == 5
    assert delta("parley_story_cache_misses_total") == 1
    assert delta("parley_story_cache_hits_total") == 4
    assert delta("parley_story_compile_seconds_count") == 1
    assert sample(after, "parley_story_cache_entries") >= 1
    templated = {"method": "POST", "route": "/stories/{story}/interactions"}
    assert sample(after, "parley_http_requests_total", **templated, status="200") >= 1


async def test_webhook_deliveries_are_counted_by_outcome_with_their_latency(
    aiohttp_server: Any, alice: Tenant, api: Api
) -> None:
    async def answer(request: web.Request) -> web.Response:
        return web.json_response({"responses": [{"type": "text", "message": "ok"}]})

    backend = web.Application()
    backend.router.add_post("/hook", answer)
    server = await aiohttp_server(backend)
    story_id = await api.create_story()
    await api.create_interaction(
        story_id,
        "Hook",
        userSays=["call the hook"],
        responses=[],
        webhook=str(server.make_url("/hook")),
    )
    await api.create_interaction(
        story_id, "Gone", userSays=["call nobody"], responses=[], webhook="http://127.0.0.1:9/"
    )
    before = await metrics_page(api.client)
    for text in ("call the hook", "call nobody"):
        await alice.public.ok(
            "POST", "/query", {"sessionId": text, "storyId": story_id, "query": text}
        )
    after = await metrics_page(api.client)
    for outcome in ("ok", "failed"):
        name = "parley_webhook_deliveries_total"
        assert sample(after, name, outcome=outcome) - sample(before, name, outcome=outcome) == 1
    count = "parley_webhook_delivery_seconds_count"
    assert sample(after, count) - sample(before, count) == 2


async def test_events_published_and_consumed_are_counted(
    aiohttp_client: Any, config: Config, api: Api
) -> None:
    integrations = await aiohttp_client(create_integrations_app(config))
    before = await metrics_page(integrations)
    story_id = await api.create_story()
    await api.ok("DELETE", f"/stories/{story_id}")  # integrations-api hears of it
    consumed = "parley_events_consumed_total"
    for _ in range(100):
        after = await metrics_page(integrations)
        drained = sample(after, "parley_outbox_backlog") == 0
        if drained and sample(after, consumed) >= sample(before, consumed) + 2:
            break
        await asyncio.sleep(0.1)
    assert sample(after, consumed) >= sample(before, consumed) + 2  # created, deleted
    assert sample(after, "parley_events_published_total") >= 2
    assert sample(after, "parley_outbox_backlog") == 0


async def test_a_database_error_is_counted(
    aiohttp_client: Any, config: Config, tmp_path: Path
) -> None:
    database = start_mongo("memory", tmp_path)
    try:
        client = await aiohttp_client(
            create_app(dataclasses.replace(config, mongodb_url=database.url))
        )
    finally:
        database.stop()
    before = await metrics_page(client)
    async with client.get("/stories", headers={"Authorization": "Bearer pdt_x"}) as response:
        assert response.status == 503
    after = await metrics_page(client)
    name = "parley_mongodb_errors_total"
    assert sample(after, name) - sample(before, name) == 1
