"""One account's long import never queues another's import or export, and its thread is
free again soon after its request answers 503 (issue 29: one import held the one transfer
thread for 23 minutes, and every import, export and version of every account answered 503
meanwhile). The long import is one within the bounds checked before parsing."""

import asyncio
import dataclasses
import io

import pytest
from aiohttp.test_utils import TestClient

from bench.fair_work import SLOW_IMPORT
from bot_api.transfer.keys import TRANSFER_WORK
from shared.config import Config
from support.api import Tenant
from support.waiting import eventually

BUDGET_SECONDS = 2.0
"""The requests' budget here: the slow import outlasts it (it takes 6 s), and a small
import or export takes tens of milliseconds."""
FREED_SECONDS = 1.0
"""How soon the cancelled import's account runs its next job (within milliseconds of the
503; without the checks, after the rest of its 6 s)."""
SMALL = {
    "format": "parley.story",
    "version": 1,
    "name": "Small",
    "interactions": [{"key": "hours", "name": "Hours", "userSays": ["when are you open"]}],
}


async def slow_import(client: TestClient, tenant: Tenant) -> int:
    async with client.post(
        "/stories/import",
        data=io.BytesIO(SLOW_IMPORT),
        headers={
            "Authorization": f"Bearer {tenant.developer.token}",
            "Content-Type": "application/json",
        },
    ) as response:
        return response.status


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, request_budget_seconds=BUDGET_SECONDS)


async def test_a_slow_import_neither_queues_another_account_nor_holds_its_thread(
    bot_api: TestClient, alice: Tenant, bob: Tenant
) -> None:
    work = bot_api.server.app[TRANSFER_WORK]

    async def started() -> bool:
        return work.running() > 0

    story_id = await bob.developer.create_story("Pizza")
    slow = asyncio.create_task(slow_import(bot_api, alice))
    await eventually(started, BUDGET_SECONDS)

    imported = await bob.developer.post("/stories/import", SMALL)
    exported = await bob.developer.get(f"/stories/{story_id}/export")
    assert (imported.status, exported.status) == (200, 200)
    assert not slow.done()

    assert await slow == 503
    async with asyncio.timeout(FREED_SECONDS):
        # the account's next job waits for its cancelled one to leave the thread
        assert await work.run(alice.tokens.account_id, lambda: "free") == "free"
