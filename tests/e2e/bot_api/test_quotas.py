"""A quota reached answers 409 `conflict` in the envelope, naming the quota
(docs/reliability.md); another account is not held back by it."""

import dataclasses

import pytest

from shared.config import Config
from support.api import Tenant


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, quota_stories=1)


async def test_a_story_past_the_accounts_quota_answers_409_naming_it(
    alice: Tenant, bob: Tenant
) -> None:
    await alice.developer.create_story("first")

    refused = await alice.developer.post("/stories", {"name": "second", "description": ""})

    assert refused.error == (409, "conflict")
    assert refused.details == "quota reached: stories per account (at most 1)"
    assert refused.body["status"]["errors"] == {"quota": "stories", "limit": 1}
    assert [s["name"] for s in await alice.developer.ok("GET", "/stories")] == ["first"]
    await bob.developer.create_story("first")
