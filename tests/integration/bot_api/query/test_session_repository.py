"""SessionRepository on the embedded MongoDB and its in-memory twin, held to one contract:
stories of three accounts with two sessions each; every call reads or changes exactly the
session (or story) it names."""

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from pymongo import AsyncMongoClient

from bot_api.engine.turn import HandedOver, SessionState
from bot_api.query.repository import (
    SessionRepository,
    SessionStore,
    StoredSession,
    TurnReply,
    session_key,
)
from integration.bot_api.query.memory import SessionsInMemory
from shared.config import Config
from shared.ids import new_object_id
from shared.pages import Page
from shared.timeutil import utcnow
from support.documents import ACCOUNTS, Documents, changed, contents
from support.memory import Database

IDLE = timedelta(minutes=10)


def state(**parameters: object) -> SessionState:
    return SessionState(parameters=parameters)


@pytest.fixture(params=["mongodb", "memory"])
async def sessions(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[SessionStore]:
    store: SessionStore
    if request.param == "mongodb":
        store = SessionRepository(mongo_client[config.bot_database])
    else:
        store = Database().sessions
    await store.ensure_indexes()
    yield store


async def seed(sessions: SessionStore) -> list[str]:
    """Two stories per account (sessions know stories, not accounts), two sessions on each,
    "s1" and "s2", each saved once; the story ids. The second session of each story is
    named after the first story, so a match on the bare story id would show."""
    stories = [new_object_id() for _ in ACCOUNTS for _ in range(2)]
    for story in stories:
        for session in ("s1", stories[0]):
            assert await sessions.save(story, session, 0, state(at=f"{story}:{session}"), IDLE)
    return stories


async def snapshot(sessions: SessionStore) -> Documents:
    if isinstance(sessions, SessionRepository):
        return await contents(sessions.collection)
    assert isinstance(sessions, SessionsInMemory)
    return dict(sessions.sessions)


async def test_load_reads_the_state_of_that_session(sessions: SessionStore) -> None:
    stories = await seed(sessions)
    for story in stories:
        for session in ("s1", stories[0]):
            expected = StoredSession(state(at=f"{story}:{session}"), 1)
            assert await sessions.load(story, session) == expected
    assert await sessions.load(stories[1], "unknown") == StoredSession(SessionState(), 0)


async def test_an_expired_session_loads_empty_and_a_save_at_the_version_read_succeeds(
    sessions: SessionStore,
) -> None:
    """MongoDB keeps an expired document until its TTL monitor runs (version kept);
    nx-27017 drops it at once (version 0): either way the save that follows succeeds."""
    stories = await seed(sessions)
    assert await sessions.save(stories[2], "gone", 0, state(at="then"), timedelta(seconds=-1))

    expired = await sessions.load(stories[2], "gone")
    assert expired.state == SessionState()
    assert await sessions.save(stories[2], "gone", expired.version, state(at="now"), IDLE)
    assert (await sessions.load(stories[2], "gone")).state == state(at="now")
    assert (await sessions.load(stories[2], "s1")).state == state(at=f"{stories[2]}:s1")


async def test_a_first_save_adds_one_session_and_loses_to_an_earlier_first_save(
    sessions: SessionStore,
) -> None:
    stories = await seed(sessions)
    before = await snapshot(sessions)

    assert await sessions.save(stories[3], "new", 0, state(step=1), IDLE)
    after = await snapshot(sessions)
    assert changed(before, after) == {session_key(stories[3], "new")}
    assert await sessions.load(stories[3], "new") == StoredSession(state(step=1), 1)

    assert not await sessions.save(stories[3], "new", 0, state(step="lost"), IDLE)
    assert await snapshot(sessions) == after


async def test_a_save_at_the_version_read_replaces_that_session_only(
    sessions: SessionStore,
) -> None:
    stories = await seed(sessions)
    before = await snapshot(sessions)

    assert await sessions.save(stories[4], "s1", 1, state(step=2), IDLE)

    after = await snapshot(sessions)
    assert changed(before, after) == {session_key(stories[4], "s1")}
    assert await sessions.load(stories[4], "s1") == StoredSession(state(step=2), 2)


async def test_a_save_at_a_stale_version_changes_nothing(sessions: SessionStore) -> None:
    stories = await seed(sessions)
    assert await sessions.save(stories[5], "s1", 1, state(step=2), IDLE)
    before = await snapshot(sessions)

    assert not await sessions.save(stories[5], "s1", 1, state(step="stale"), IDLE)
    assert not await sessions.save(stories[5], "s1", 5, state(step="ahead"), IDLE)

    assert await snapshot(sessions) == before


async def test_the_replies_saved_with_a_state_are_read_with_it_until_it_expires(
    sessions: SessionStore,
) -> None:
    stories = await seed(sessions)
    replies = (TurnReply("k1", "asked1", '{"a":1}'), TurnReply("k2", "asked2", '{"b":"ü"}'))
    before = await snapshot(sessions)

    assert await sessions.save(stories[0], "s1", 1, state(step=2), IDLE, replies)
    assert changed(before, await snapshot(sessions)) == {session_key(stories[0], "s1")}
    assert await sessions.load(stories[0], "s1") == StoredSession(state(step=2), 2, replies)
    assert (await sessions.load(stories[1], "s1")).replies == ()

    assert await sessions.save(stories[0], "s1", 2, state(step=3), IDLE)  # none kept
    assert await sessions.load(stories[0], "s1") == StoredSession(state(step=3), 3)

    assert await sessions.save(stories[2], "gone", 0, state(), timedelta(seconds=-1), replies)
    assert (await sessions.load(stories[2], "gone")).replies == ()


async def test_delete_forgets_that_session_only(sessions: SessionStore) -> None:
    stories = await seed(sessions)
    before = await snapshot(sessions)

    assert await sessions.delete(stories[1], "s1")

    after = await snapshot(sessions)
    assert changed(before, after) == {session_key(stories[1], "s1")}
    assert len(after) == len(before) - 1
    assert await sessions.load(stories[1], "s1") == StoredSession(SessionState(), 0)
    assert not await sessions.delete(stories[1], "s1")
    assert not await sessions.delete(stories[1], "unknown")
    assert await snapshot(sessions) == after


async def test_delete_for_story_deletes_that_story_s_sessions_only(
    sessions: SessionStore,
) -> None:
    stories = await seed(sessions)
    before = await snapshot(sessions)

    await sessions.delete_for_story(stories[0])

    after = await snapshot(sessions)
    assert changed(before, after) == {session_key(stories[0], s) for s in ("s1", stories[0])}
    assert len(after) == len(before) - 2


async def test_open_handoffs_lists_the_story_s_recent_unexpired_handoffs_oldest_first(
    sessions: SessionStore,
) -> None:
    stories = await seed(sessions)
    now = utcnow().replace(microsecond=500_000)  # MongoDB keeps milliseconds
    active_since = now - timedelta(minutes=30)

    def handed(minutes_ago: int, last: timedelta) -> SessionState:
        since = now - timedelta(minutes=minutes_ago)
        return SessionState(handoff=HandedOver("c" * 24, since, active_since + last))

    story, minute, moment = stories[1], timedelta(minutes=1), timedelta(milliseconds=200)
    assert await sessions.save(story, "late", 0, handed(5, 29 * minute), IDLE)
    assert await sessions.save(story, "early", 0, handed(50, 28 * minute), IDLE)
    # 200 ms either side of `active_since`, within its second: the list compares milliseconds
    assert await sessions.save(story, "just active", 0, handed(40, moment), IDLE)
    assert await sessions.save(story, "just idle", 0, handed(45, -moment), IDLE)
    assert await sessions.save(story, "gone", 0, handed(3, 29 * minute), timedelta(seconds=-1))
    assert await sessions.save(stories[2], "other story", 0, handed(5, 29 * minute), IDLE)
    assert await sessions.save(story, "given back", 0, handed(5, 29 * minute), IDLE)
    assert await sessions.save(story, "given back", 1, SessionState(), IDLE)

    items, total = await sessions.open_handoffs(story, active_since, Page(0, 10))

    assert [(item.session_id, item.handoff) for item in items] == [
        ("early", handed(50, 28 * minute).handoff),
        ("just active", handed(40, moment).handoff),
        ("late", handed(5, 29 * minute).handoff),
    ]
    assert total == 3
    page, total = await sessions.open_handoffs(story, active_since, Page(1, 1))
    assert ([item.session_id for item in page], total) == (["just active"], 3)
    assert (await sessions.load(story, "early")).state == handed(50, 28 * minute)
    assert await sessions.open_handoffs(stories[3], active_since, Page(0, 10)) == ([], 0)
