"""The analytics counters as pure code: hours, latency buckets and percentiles, what a
batch adds, how a conversation moves; and the counters against a store where another
process writes between their read and their conditional write."""

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot_api.analytics.counters import AnalyticsCounters
from bot_api.domain.analytics import (
    EVERYWHERE,
    Conversation,
    Tally,
    conversation_change,
    conversations_seen,
    hour_of,
    hour_start,
    latency_bucket,
    message_tallies,
    percentile,
)
from bot_api.domain.history import AnsweredBy, TurnRecord
from integration.bot_api.analytics.memory import AnalyticsInMemory

NOON = datetime(2026, 3, 1, 12, tzinfo=UTC)
HELLO = AnsweredBy("i-hello", "hello", "standard")


def turn(session: str, minutes: float, outcome: str = "matched") -> TurnRecord:
    return TurnRecord(
        account_id="a1",
        story_id="st",
        session_id=session,
        at=NOON + timedelta(minutes=minutes),
        outcome=outcome,  # type: ignore[arg-type]
        interaction=HELLO,
        latency_ms=5.0,
    )


def test_hours_are_utc_hours_since_the_epoch() -> None:
    assert hour_of(datetime(1970, 1, 1, 1, 59, tzinfo=UTC)) == 1
    assert hour_of(datetime(1970, 1, 1, 1, 59)) == 1
    assert hour_of(datetime(1970, 1, 1, 3, 30, tzinfo=UTC) + timedelta(hours=-2)) == 1
    assert hour_start(hour_of(NOON + timedelta(minutes=59))) == NOON


def test_percentiles_from_the_buckets_are_within_two_and_a_half_percent() -> None:
    rng = random.Random(18)
    latencies = sorted(rng.lognormvariate(3, 1) for _ in range(20_000))
    histogram: dict[int, int] = {}
    for latency in latencies:
        bucket = latency_bucket(latency)
        histogram[bucket] = histogram.get(bucket, 0) + 1
    for fraction in (0.5, 0.95):
        exact = latencies[int(fraction * len(latencies)) - 1]
        estimate = percentile(histogram, fraction)
        assert estimate is not None and abs(estimate / exact - 1) < 0.025, (fraction, exact)
    assert percentile({}, 0.5) is None
    assert latency_bucket(0.0) == 0


def test_a_batch_counts_messages_fallbacks_and_answers_in_each_turn_s_hour() -> None:
    tallies = message_tallies([turn("s1", 0), turn("s1", 30, "fallback"), turn("s2", 60)])
    hour = hour_of(NOON)
    assert tallies[("st", hour, EVERYWHERE)].messages == 2
    assert tallies[("st", hour, EVERYWHERE)].fallbacks == 1
    assert tallies[("st", hour, EVERYWHERE)].interactions == {"i-hello": 2}
    assert tallies[("st", hour + 1, EVERYWHERE)].messages == 1
    assert tallies[("st", hour, EVERYWHERE)].conversations == 0


def test_a_conversation_starts_at_its_earliest_turn_and_fell_back_if_any_turn_did() -> None:
    seen = conversations_seen([turn("s1", 70), turn("s1", 10, "fallback"), turn("s2", 0)])
    hour = hour_of(NOON)
    assert seen == {("st", "s1"): Conversation(hour, True), ("st", "s2"): Conversation(hour, False)}


def test_a_conversation_that_moves_leaves_its_old_hour() -> None:
    assert conversation_change("st", None, Conversation(5, False)) == {
        ("st", 5, EVERYWHERE): Tally(1, 0)
    }
    assert conversation_change("st", Conversation(5, False), Conversation(5, True)) == {
        ("st", 5, EVERYWHERE): Tally(0, 1)
    }
    assert conversation_change("st", Conversation(6, True), Conversation(5, True)) == {
        ("st", 6, EVERYWHERE): Tally(-1, -1),
        ("st", 5, EVERYWHERE): Tally(1, 1),
    }


async def test_another_process_between_the_read_and_the_write_is_counted_once() -> None:
    """The other process stores the session first, then marks its fallback, each time
    just before these counters write what they read: their writes miss and they read
    again."""
    store = AnalyticsInMemory()
    counters, other = AnalyticsCounters(store), AnalyticsCounters(store)
    store.meanwhile(lambda: other.turns_written([turn("s1", 5)]))
    await counters.turns_written([turn("s1", 0)])
    store.meanwhile(lambda: other.turns_written([turn("s1", 6, "fallback")]))
    await counters.turns_written([turn("s1", 7, "fallback")])
    total = sum(store.hours.values(), Tally())
    assert (total.conversations, total.fell_back, total.messages) == (1, 1, 4)
    assert store.conversations == {("st", "s1"): Conversation(hour_of(NOON), True)}


async def test_the_test_chat_s_turns_are_not_counted() -> None:
    store = AnalyticsInMemory()
    counters = AnalyticsCounters(store)
    tried = [
        replace(turn("console", 0, "fallback"), test=True),
        replace(turn("console", 1), test=True),
    ]
    await counters.turns_written([*tried, turn("visitor", 2)])
    total = sum(store.hours.values(), Tally())
    assert (total.conversations, total.fell_back, total.messages) == (1, 0, 1)
    assert list(store.conversations) == [("st", "visitor")]


async def test_a_take_over_at_the_desk_is_no_message() -> None:
    store = AnalyticsInMemory()
    taken = replace(turn("s1", 1, "handoff"), interaction=None, taken_over=True)
    await AnalyticsCounters(store).turns_written([turn("s1", 0), taken, turn("s1", 2, "handoff")])
    total = sum(store.hours.values(), Tally())
    assert (total.conversations, total.messages) == (1, 2)


def test_a_conversation_counts_in_the_source_and_channel_of_its_first_turn() -> None:
    hour = hour_of(NOON)
    later = replace(turn("s1", 70), default_source="telegram", channel="c-1")
    first = replace(turn("s1", 10, "fallback"), default_source="widget")
    tallies = message_tallies([later, first])
    assert tallies[("st", hour, ("widget", None))].messages == 1
    assert tallies[("st", hour + 1, ("telegram", "c-1"))].messages == 1
    seen = conversations_seen([later, first])
    assert seen == {("st", "s1"): Conversation(hour, True, ("widget", None))}
    moved = conversation_change(
        "st", Conversation(hour + 1, False, ("telegram", "c-1")), seen[("st", "s1")]
    )
    assert moved == {
        ("st", hour + 1, ("telegram", "c-1")): Tally(-1, 0),
        ("st", hour, ("widget", None)): Tally(1, 1),
    }
