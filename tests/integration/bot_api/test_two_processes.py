"""Two bot-api processes answer one session at once and lose no update."""

import asyncio
import time

import aiohttp

from support.api import Tenant


async def test_fifty_queries_split_over_two_processes_lose_no_parameter(
    alice: Tenant, second_bot_api: str
) -> None:
    await alice.developer.create_story()
    headers = {"Authorization": f"Bearer {alice.tokens.public_key}"}

    async def to_second(session: aiohttp.ClientSession, index: int) -> int:
        body = {"sessionId": "shared", "trigger": "welcome", "parameters": {f"p{index}": index}}
        async with session.post(f"{second_bot_api}/query", json=body, headers=headers) as reply:
            return reply.status

    async def to_first(index: int) -> int:
        body = {"sessionId": "shared", "trigger": "welcome", "parameters": {f"p{index}": index}}
        return (await alice.public.post("/query", body)).status

    async with aiohttp.ClientSession() as session:
        statuses = await asyncio.gather(
            *(to_second(session, i) if i % 2 else to_first(i) for i in range(50))
        )
    assert set(statuses) == {200}
    final = await alice.public.post("/query", {"sessionId": "shared", "trigger": "welcome"})
    assert final.body["result"]["parameters"] == {f"p{i}": i for i in range(50)}


async def test_an_edit_through_one_process_is_answered_by_the_other_within_a_second(
    alice: Tenant, second_bot_api: str
) -> None:
    api = alice.developer
    story_id = await api.create_story()
    hours = await api.create_interaction(story_id, "Hours", userSays=["when are you open"])
    headers = {"Authorization": f"Bearer {alice.tokens.public_key}"}

    async with aiohttp.ClientSession() as session:

        async def answered_by_second(text: str) -> str | None:
            body = {"sessionId": f"s{time.monotonic_ns()}", "storyId": story_id, "query": text}
            async with session.post(f"{second_bot_api}/query", json=body, headers=headers) as r:
                interaction = (await r.json())["result"]["interaction"]
                return None if interaction is None else str(interaction["id"])

        assert await answered_by_second("when are you open") == hours
        await api.ok(
            "PUT", f"/stories/{story_id}/interactions/{hours}", {"userSays": ["opening times"]}
        )
        edited = time.monotonic()
        while await answered_by_second("opening times") != hours:
            assert time.monotonic() - edited < 1.0, "the second process still answers the old story"
            await asyncio.sleep(0.05)
