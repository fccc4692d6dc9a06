"""One account's long import never queues another's import or export, and its thread is
free again soon after its request answers 503 (issue 29: one import held the one transfer
thread for 23 minutes, and every import, export and version of every account answered 503
meanwhile)."""

import asyncio
import dataclasses
import io

import pytest
from aiohttp.test_utils import TestClient

from bot_api.keys import TRANSFER_WORK
from shared.config import Config
from support.api import Tenant
from support.waiting import eventually

BUDGET_SECONDS = 3.0
"""The requests' budget here: the huge import outlasts it many times over (it ran for
minutes), and a small import or export takes tens of milliseconds."""
HUGE = (
    '{"format": "parley.story", "version": 1, "name": "Huge", "interactions": ['
    + ("1," * 999_999 + "1]}")
).encode()
"""2 MB: a list of a million items (the campaign's upload, as JSON)."""
SMALL = {
    "format": "parley.story",
    "version": 1,
    "name": "Small",
    "interactions": [{"key": "hours", "name": "Hours", "userSays": ["when are you open"]}],
}


async def huge_import(client: TestClient, tenant: Tenant) -> int:
    async with client.post(
        "/stories/import",
        data=io.BytesIO(HUGE),
        headers={
            "Authorization": f"Bearer {tenant.developer.token}",
            "Content-Type": "application/json",
        },
    ) as response:
        return response.status


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, request_budget_seconds=BUDGET_SECONDS)


async def test_a_huge_import_neither_queues_another_account_nor_holds_its_thread(
    bot_api: TestClient, alice: Tenant, bob: Tenant
) -> None:
    work = bot_api.server.app[TRANSFER_WORK]

    async def started() -> bool:
        return work.running() > 0

    story_id = await bob.developer.create_story("Pizza")
    huge = asyncio.create_task(huge_import(bot_api, alice))
    await eventually(started, BUDGET_SECONDS)

    imported = await bob.developer.post("/stories/import", SMALL)
    exported = await bob.developer.get(f"/stories/{story_id}/export")
    assert (imported.status, exported.status) == (200, 200)
    assert not huge.done()

    assert await huge == 503
    async with asyncio.timeout(BUDGET_SECONDS):
        # the account's next job waits for its cancelled one to leave the thread
        assert await work.run(alice.tokens.account_id, lambda: "free") == "free"
