"""AuditLog on the embedded MongoDB (shared/audit.py): three accounts with records of
their own; every call reads or changes the records of its own account only."""

from datetime import timedelta

import pytest
from pymongo import AsyncMongoClient

from shared.audit import DEVELOPER_TOKEN, Actor, AuditFilter, AuditLog
from shared.config import Config
from shared.errors import BadRequest
from shared.timeutil import utcnow
from support.documents import ACCOUNTS, changed, contents

BY = Actor(DEVELOPER_TOKEN, "developer", "Developer token")
ADA = Actor("member", "m-ada", "Ada")


@pytest.fixture
async def audit(mongo_client: AsyncMongoClient, config: Config) -> AuditLog:
    log = AuditLog(mongo_client[config.accounts_database], retention_days=30)
    await log.ensure_indexes()
    return log


async def begin(audit: AuditLog, account: str, n: int, actor: Actor = BY) -> str:
    return await audit.begin(
        account_id=account,
        actor=actor,
        kind="story.update" if n % 2 else "story.create",
        story_id=f"story-{n % 3}",
        target=f"target-{n}",
        summary=f"name: {n}",
    )


async def seed(audit: AuditLog) -> dict[tuple[str, int], str]:
    ids = {}
    for n in range(6):
        for account in ACCOUNTS:
            ids[account, n] = await begin(audit, account, n, ADA if n == 5 else BY)
            await audit.confirm(
                ids[account, n],
                kind="story.update" if n % 2 else "story.create",
                target=f"target-{n}",
                story_id=f"story-{n % 3}",
                summary=f"name: {n}",
            )
    return ids


async def test_confirm_and_withdraw_touch_their_own_unconfirmed_record_only(
    audit: AuditLog,
) -> None:
    ids = await seed(audit)
    before = await contents(audit.collection)
    pending = await begin(audit, ACCOUNTS[1], 7)
    refused = await begin(audit, ACCOUNTS[1], 8)

    await audit.confirm(pending, kind="story.publish", target="v1", story_id="s", summary="x")
    await audit.withdraw(refused)
    await audit.withdraw(ids[ACCOUNTS[0], 0])  # confirmed: never withdrawn
    await audit.confirm(ids[ACCOUNTS[2], 0], kind="k.k", target="t", story_id=None, summary="")

    assert changed(before, await contents(audit.collection)) == {pending}
    records, _ = await audit.page(ACCOUNTS[1], AuditFilter(kind="story.publish"), None)
    assert [(r.id, r.target, r.confirmed, r.actor) for r in records] == [(pending, "v1", True, BY)]
    stored = next(
        d for d in (await contents(audit.collection)).values() if str(d["_id"]) == pending
    )
    assert stored["expiresAt"] - stored["at"] == timedelta(days=30)


async def test_pages_are_the_account_s_own_newest_first_and_filtered(audit: AuditLog) -> None:
    ids = await seed(audit)
    account = ACCOUNTS[2]

    first, cursor = await audit.page(account, AuditFilter(), None, size=4)
    rest, end = await audit.page(account, AuditFilter(), cursor, size=4)

    assert [r.id for r in first + rest] == [ids[account, n] for n in reversed(range(6))]
    assert end is None
    assert all(r.confirmed for r in first + rest)
    by_ada, _ = await audit.page(account, AuditFilter(member="m-ada"), None)
    assert [r.id for r in by_ada] == [ids[account, 5]]
    of_story, _ = await audit.page(account, AuditFilter(story="story-1", kind="story.update"), None)
    assert [r.target for r in of_story] == ["target-1"]
    later, _ = await audit.page(account, AuditFilter(since=utcnow() + timedelta(minutes=1)), None)
    assert later == []
    earlier, _ = await audit.page(account, AuditFilter(until=utcnow() + timedelta(minutes=1)), None)
    assert len(earlier) == 6
    with pytest.raises(BadRequest):
        await audit.page(account, AuditFilter(), "bm90LWEtY3Vyc29y")


async def test_an_export_streams_every_record_and_no_other_account_s(audit: AuditLog) -> None:
    ids = await seed(audit)

    exported = [r async for r in audit.export(ACCOUNTS[0], AuditFilter(), None)]

    assert [r.id for r in exported if not isinstance(r, str)] == [
        ids[ACCOUNTS[0], n] for n in reversed(range(6))
    ]
    assert len(exported) == 6
