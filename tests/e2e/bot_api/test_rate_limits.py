"""Per-token rate limits on /query and the management API: 429 `rate_limited` with
`Retry-After` beyond the burst, each token and account counted apart
(docs/reliability.md)."""

import dataclasses
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api
from support.responsiveness import healthz_probed

BURST = 5


@pytest.fixture
async def limited(aiohttp_client: Any, config: Config) -> TestClient:
    own = dataclasses.replace(
        config, query_rate=1, query_burst=BURST, management_rate=1, management_burst=BURST
    )
    client: TestClient = await aiohttp_client(create_app(own))
    return client


async def test_requests_beyond_the_burst_answer_429_with_retry_after(
    limited: TestClient, accounts: AccountRepository
) -> None:
    alice = await accounts.create("alice")
    bob = await accounts.create("bob")
    developer = Api(limited, alice.developer_token)
    public = Api(limited, alice.public_key)
    story_id = await developer.create_story()
    query = {"sessionId": "s", "query": "hello", "storyId": story_id}
    async with healthz_probed(limited) as probe:
        management = [(await developer.get("/stories")).status for _ in range(BURST + 20)]
        answers = [await public.post("/query", query) for _ in range(BURST + 20)]
    print(probe.report(f"{2 * (BURST + 20)} requests past the limits"))
    assert management.count(200) <= BURST and management[-1] == 429
    assert [a.status for a in answers][:BURST] == [200] * BURST
    refused = answers[-1]
    assert refused.error == (429, "rate_limited")
    assert int(refused.headers["Retry-After"]) >= 1
    assert (await Api(limited, bob.developer_token).get("/stories")).status == 200


async def test_without_limits_nothing_is_refused(api: Api, story_id: str) -> None:
    statuses = {(await api.get("/stories")).status for _ in range(60)}
    assert statuses == {200}
