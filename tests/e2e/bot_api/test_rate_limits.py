"""Rate limits on /query and the management API: 429 `rate_limited` with
`Retry-After` beyond the burst, each account counted apart, the account's share taken by
each replica; failed authentication limited per client address (docs/reliability.md).
The defaults against real use: test_rate_limit_defaults.py."""

import dataclasses
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from shared.auth import AccountRepository
from shared.config import Config
from shared.keys import REPLICAS
from support.api import Api, Reply
from support.responsiveness import healthz_probed
from support.waiting import eventually

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


async def test_the_account_ceiling_holds_across_two_replicas(
    aiohttp_client: Any, config: Config, accounts: AccountRepository
) -> None:
    """Two apps on one NATS each take half of the account's /query burst: together they
    answer no more than one would alone."""
    ceiling = dataclasses.replace(config, query_rate=0.001, query_burst=2 * BURST)
    replicas = [await aiohttp_client(create_app(ceiling)) for _ in range(2)]
    await eventually(lambda: _all_see(replicas, 2))
    tokens = await accounts.create("alice")
    story_id = await Api(replicas[0], tokens.developer_token).create_story()
    query = {"sessionId": "s", "query": "hello", "storyId": story_id}

    statuses = [
        (await Api(replica, tokens.public_key).post("/query", query)).status
        for replica in replicas
        for _ in range(2 * BURST)
    ]
    assert statuses.count(200) == 2 * BURST
    assert statuses.count(429) == 2 * BURST


async def _all_see(replicas: list[TestClient], count: int) -> bool:
    return all(replica.app[REPLICAS].live() == count for replica in replicas)


async def test_failed_authentication_is_limited_per_client_address(
    aiohttp_client: Any, config: Config, accounts: AccountRepository
) -> None:
    """Past the burst of failures an address is refused before any look-up, even with a
    valid token; another address is not."""
    own = dataclasses.replace(config, auth_failure_rate=0.001, auth_failure_burst=BURST)
    client = await aiohttp_client(create_app(own))
    valid = (await accounts.create("alice")).developer_token
    guessing, other = ({"X-Forwarded-For": f"198.51.100.{n}"} for n in (1, 2))

    async def status(token: str, headers: dict[str, str]) -> Reply:
        return await Api(client, token).call("GET", "/stories", headers=headers)

    guesses = [(await status(f"pdt_guess{n}", guessing)).status for n in range(BURST + 3)]
    assert guesses == [401] * BURST + [429] * 3
    refused = await status(valid, guessing)
    assert refused.error == (429, "rate_limited") and "invalid tokens" in refused.details
    assert (await status(valid, other)).status == 200
    assert (await status("pdt_guess", other)).status == 401
