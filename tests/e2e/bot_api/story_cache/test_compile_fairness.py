"""Tenant B's new story answers its first query while tenant A's large stories compile
cold (issue 29): compiles are shared between accounts a chunk at a time. A's own queries
answer or are refused within the cut budget, never fail otherwise; whether A's first
one answers from the part of its story compiled so far depends on the CPU the machine
has free, so that is measured by `make bench` (bench/compile_fairness.py), not judged
here (it answered 503 in two suite runs of three on a shared machine).

The request budget is cut to `BUDGET` seconds and A's stories sized so that, compiled
whole one at a time as before, B's compile waited for them longer than that (a 503)."""

import asyncio
from dataclasses import replace

import pytest
from aiohttp.test_utils import TestClient
from prometheus_client import REGISTRY

from bench.synthetic import stored_story, story_interactions
from bot_api.app import create_app
from shared.config import Config
from support.api import Reply, Tenant
from tests.conftest import AiohttpClient
from tests.support.held_jobs import until

BUDGET = 3.0
LARGE_STORIES = 4
INTERACTIONS = 2000
PHRASES = 20
"""A's stories: 40,000 phrases each, about 0.8 s of CPU each to compile."""


@pytest.fixture
async def bot_api(aiohttp_client: AiohttpClient, config: Config) -> TestClient:
    return await aiohttp_client(create_app(replace(config, request_budget_seconds=BUDGET)))


def misses() -> float:
    return REGISTRY.get_sample_value("parley_story_cache_misses_total") or 0.0


async def test_a_small_storys_first_query_answers_while_another_tenants_large_ones_compile(
    config: Config, alice: Tenant, bob: Tenant
) -> None:
    interactions = story_interactions(INTERACTIONS, PHRASES)
    large = [
        await stored_story(config, alice.tokens.account_id, interactions)
        for _ in range(LARGE_STORIES)
    ]
    tickets = {"name": "Tickets", "userSays": ["where is my ticket"]}
    small = await stored_story(config, bob.tokens.account_id, [tickets], "small")
    missed = misses()

    def ask(tenant: Tenant, story_id: str) -> "asyncio.Task[Reply]":
        body = {"sessionId": "s1", "storyId": story_id, "query": "where is my ticket"}
        return asyncio.create_task(tenant.developer.post("/query", body))

    large_queries = [ask(alice, story_id) for story_id in large]
    await until(lambda: misses() >= missed + LARGE_STORIES)
    small_reply = await ask(bob, small)
    large_replies = await asyncio.gather(*large_queries)

    assert small_reply.status == 200, small_reply.body
    assert small_reply.body["result"]["interaction"]["name"] == "Tickets"
    assert {r.status for r in large_replies} <= {200, 503}, [r.body for r in large_replies]
