"""The analytics counters over AnalyticsRepository on the embedded MongoDB and over its
in-memory twin (memory.py beside this file), held to the same contract: what a batch
counts, a session counted once across batches and processes, a late earlier turn moving
its conversation, reads by hour range, and a story's deletion."""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from pymongo import AsyncMongoClient

from bot_api.analytics.counters import AnalyticsCounters, AnalyticsStore
from bot_api.analytics.repository import AnalyticsRepository
from bot_api.domain.analytics import Tally, hour_of, latency_bucket
from bot_api.domain.history import AnsweredBy, TurnRecord
from integration.bot_api.analytics.memory import AnalyticsInMemory
from shared.config import Config
from shared.ids import new_object_id

NOON = datetime(2026, 3, 1, 12, tzinfo=UTC)
HOURS = hour_of(NOON)
HOURS_AND_A_DAY = HOURS + 24
HELLO = AnsweredBy("i-hello", "hello", "standard")
FALLBACK = AnsweredBy("i-fallback", "fallback", "fallback")


def turn(
    story: str, session: str, minutes: float, fell_back: bool = False, **more: object
) -> TurnRecord:
    record = TurnRecord(
        account_id="a1",
        story_id=story,
        session_id=session,
        at=NOON + timedelta(minutes=minutes),
        outcome="fallback" if fell_back else "matched",
        query="hi",
        interaction=FALLBACK if fell_back else HELLO,
        latency_ms=10.0,
    )
    return replace(record, **more)  # type: ignore[arg-type]


@pytest.fixture(params=["mongodb", "memory"])
async def store(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[AnalyticsStore]:
    if request.param == "memory":
        yield AnalyticsInMemory()
        return
    repository = AnalyticsRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    yield repository


async def test_a_batch_counts_in_the_hours_of_its_turns(store: AnalyticsStore) -> None:
    story, other = new_object_id(), new_object_id()
    counters = AnalyticsCounters(store)
    await counters.turns_written(
        [
            turn(story, "s1", 0),
            turn(story, "s1", 1, fell_back=True),
            turn(story, "s2", 2, webhook="timeout"),
            turn(story, "s2", 61, webhook="ok", latency_ms=1000.0),
            turn(other, "s1", 3),
        ]
    )
    hours = await store.hours_of(story, HOURS, HOURS + 2)
    assert hours == {
        HOURS: Tally(
            conversations=2,
            fell_back=1,
            messages=3,
            fallbacks=1,
            webhook_failures=1,
            interactions={"i-hello": 2, "i-fallback": 1},
            latency={str(latency_bucket(10.0)): 3},
        ),
        HOURS + 1: Tally(
            messages=1,
            interactions={"i-hello": 1},
            latency={str(latency_bucket(1000.0)): 1},
        ),
    }
    assert (await store.hours_of(other, HOURS, HOURS + 2))[HOURS].conversations == 1


async def test_the_first_hour_is_the_story_s_earliest_whatever_the_order(
    store: AnalyticsStore,
) -> None:
    story, other, empty = new_object_id(), new_object_id(), new_object_id()
    counters = AnalyticsCounters(store)
    await counters.turns_written([turn(story, "s1", 24 * 60 + 5), turn(other, "s1", 0)])
    await counters.turns_written([turn(story, "s2", 125), turn(story, "s3", 24 * 90)])
    assert await store.first_hour(story) == HOURS + 2
    assert await store.first_hour(other) == HOURS
    assert await store.first_hour(empty) is None


async def test_a_session_is_one_conversation_and_falls_back_once_across_batches(
    store: AnalyticsStore,
) -> None:
    story = new_object_id()
    counters = AnalyticsCounters(store)
    for minutes in range(0, 150, 30):
        await counters.turns_written([turn(story, "s1", minutes, fell_back=minutes >= 60)])
    hours = await store.hours_of(story, HOURS, HOURS_AND_A_DAY)
    total = sum(hours.values(), Tally())
    assert (total.conversations, total.fell_back, total.messages, total.fallbacks) == (1, 1, 5, 3)
    assert (hours[HOURS].conversations, hours[HOURS].fell_back) == (1, 1)


async def test_an_earlier_turn_written_later_moves_the_conversation_to_its_hour(
    store: AnalyticsStore,
) -> None:
    story = new_object_id()
    counters = AnalyticsCounters(store)
    await counters.turns_written([turn(story, "s1", 90, fell_back=True)])
    await counters.turns_written([turn(story, "s1", 10)])
    hours = await store.hours_of(story, HOURS, HOURS_AND_A_DAY)
    assert (hours[HOURS].conversations, hours[HOURS].fell_back) == (1, 1)
    assert (hours[HOURS + 1].conversations, hours[HOURS + 1].fell_back) == (0, 0)


async def test_two_processes_counting_the_same_sessions_count_each_once(
    store: AnalyticsStore,
) -> None:
    """Two counters over one store, as two replicas over one database: every session's
    turns are split between them, batch by batch, written at once."""
    story = new_object_id()
    first, second = AnalyticsCounters(store), AnalyticsCounters(store)
    sessions = [f"s{n}" for n in range(20)]
    for minutes in range(4):
        batch = [turn(story, s, minutes, fell_back=n % 2 == 1) for n, s in enumerate(sessions)]
        await asyncio.gather(first.turns_written(batch[::2]), second.turns_written(batch))
    total = sum((await store.hours_of(story, HOURS, HOURS_AND_A_DAY)).values(), Tally())
    assert (total.conversations, total.fell_back, total.messages) == (20, 10, 120)


async def test_hours_are_read_in_their_range_and_a_deleted_story_loses_its_counters(
    store: AnalyticsStore,
) -> None:
    story, kept = new_object_id(), new_object_id()
    counters = AnalyticsCounters(store)
    day = 24 * 60
    await counters.turns_written(
        [turn(s, "s1", minutes) for s in (story, kept) for minutes in (-1, 0, day - 1, day)]
    )
    assert sorted(await store.hours_of(story, HOURS, HOURS_AND_A_DAY)) == [HOURS, HOURS + 23]
    await store.delete_for_story(story)
    assert await store.hours_of(story, HOURS - 1, HOURS_AND_A_DAY + 1) == {}
    assert len(await store.hours_of(kept, HOURS - 1, HOURS_AND_A_DAY + 1)) == 4
    await counters.turns_written([turn(story, "s1", 5)])
    assert (await store.hours_of(story, HOURS, HOURS + 1))[HOURS].conversations == 1


async def test_hours_are_read_by_source_and_channel(store: AnalyticsStore) -> None:
    """Each hour is counted per (source, channel); a conversation in those of its first
    turn, moving with it when an earlier turn comes in a later batch."""
    story, other = new_object_id(), new_object_id()
    counters = AnalyticsCounters(store)
    await counters.turns_written(
        [
            turn(story, "w1", 0, default_source="widget"),
            turn(story, "w1", 1, fell_back=True, default_source="widget"),
            turn(story, "t1", 2, default_source="telegram", channel="c-1"),
            turn(story, "t2", 3, default_source="telegram", channel="c-2"),
            turn(story, "api", 4),
            turn(other, "w1", 5, default_source="widget"),
        ]
    )
    await counters.turns_written([turn(story, "t1", -30, default_source="slack", channel="c-3")])

    def figures(hours: dict[int, Tally]) -> tuple[int, int, int]:
        total = sum(hours.values(), Tally())
        return total.conversations, total.messages, total.fallbacks

    span = (HOURS - 1, HOURS + 1)
    assert figures(await store.hours_of(story, *span)) == (4, 6, 1)
    assert figures(await store.hours_of(story, *span, ("widget", None))) == (1, 2, 1)
    assert figures(await store.hours_of(story, *span, ("telegram", None))) == (1, 2, 0)
    assert figures(await store.hours_of(story, *span, (None, "c-2"))) == (1, 1, 0)
    assert figures(await store.hours_of(story, *span, ("slack", None))) == (1, 1, 0)
    assert figures(await store.hours_of(story, *span, ("telegram", "c-1"))) == (0, 1, 0)
    assert figures(await store.hours_of(story, *span, ("console", None))) == (0, 0, 0)
    assert sorted(await store.hours_of(story, *span, (None, "c-3"))) == [HOURS - 1]


async def test_the_unique_hour_index_of_before_is_replaced(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    """Hours were one document each under a unique (storyId, hour) index; one hour now
    holds a document per segment."""
    database = mongo_client[config.bot_database]
    await database["analytics_hours"].drop_indexes()
    await database["analytics_hours"].create_index([("storyId", 1), ("hour", 1)], unique=True)
    repository = AnalyticsRepository(database)
    await repository.ensure_indexes()
    await repository.ensure_indexes()
    story = new_object_id()
    await AnalyticsCounters(repository).turns_written(
        [turn(story, "a", 0, default_source="widget"), turn(story, "b", 1)]
    )
    assert (await repository.hours_of(story, HOURS, HOURS + 1))[HOURS].messages == 2
