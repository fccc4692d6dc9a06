"""The desk's live streams (handoffs/live.py) and their lines on NATS (handoffs/wire.py):
bounded per account and per client, a slow reader ended, every stream ended at
shutdown, a line the same after the trip to another replica."""

from datetime import UTC, datetime

import pytest

from bot_api.changes import DeskLinesAdded
from bot_api.domain.desk import DeskEntry
from bot_api.domain.history import Person
from bot_api.handoffs.live import CAPACITY, DeskNews, DeskStreams, news_of
from bot_api.handoffs.wire import desk_events_of, news_of_event
from shared.events import DeskEvent, decode, encode
from shared.rates import RateLimited

NOON = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
LINE = DeskEntry("t1:0", NOON, "person", "Ana here", Person("Ana Lima", "agent", "m1"))


def test_streams_are_bounded_per_account_and_per_client() -> None:
    streams = DeskStreams(per_account=2, per_client=2)
    first = streams.open("a", "story", "10.0.0.1")
    streams.open("a", "story", "10.0.0.2")
    with pytest.raises(RateLimited, match="the account has 2"):
        streams.open("a", "other story", "10.0.0.3")
    streams.open("b", "story", "10.0.0.1")
    with pytest.raises(RateLimited, match="this client has 2"):
        streams.open("c", "story", "10.0.0.1")
    first.close()
    first.close()  # closing twice frees one place, once
    streams.open("c", "story", "10.0.0.1")
    assert streams.count == 3


async def test_a_stream_hears_its_story_s_lines_only() -> None:
    streams = DeskStreams(per_account=5, per_client=5)
    mine, other = streams.open("a", "s1", "x"), streams.open("a", "s2", "x")
    await streams.changed(DeskLinesAdded("a", "s1", "sess", (LINE,), list_changed=True))
    await streams.changed(DeskLinesAdded("b", "s1", "sess", (LINE,)))
    assert await mine.next(0.0) == [DeskNews("sess", LINE, True)]
    assert await other.next(0.0) == []
    assert not mine.ended


def test_a_reader_too_slow_is_ended_rather_than_held_in_memory() -> None:
    streams = DeskStreams(per_account=5, per_client=5)
    stream = streams.open("a", "s1", "x")
    streams.tell("a", "s1", [DeskNews("sess", LINE)] * (CAPACITY + 1))
    assert stream.ended


async def test_shutting_down_ends_every_stream_and_opens_none() -> None:
    streams = DeskStreams(per_account=5, per_client=5)
    stream = streams.open("a", "s1", "x")
    await streams.close()
    assert stream.ended and await stream.next(5.0) == []  # at once, not after 5 s
    with pytest.raises(RateLimited, match="shutting down"):
        streams.open("a", "s1", "y")


def test_the_list_s_change_comes_with_the_last_line_or_alone() -> None:
    second = DeskEntry("t1:1", NOON, "bot", "Hi", None)
    change = DeskLinesAdded("a", "s1", "sess", (LINE, second), list_changed=True)
    assert [n.list_changed for n in news_of(change)] == [False, True]
    assert news_of(DeskLinesAdded("a", "s1", "sess", (), True)) == [DeskNews("sess", None, True)]


def test_a_line_reads_the_same_on_another_replica() -> None:
    change = DeskLinesAdded("a", "s1", "sess", (LINE,), list_changed=True)
    (event,) = desk_events_of(change, origin="replica-1")
    read = decode(DeskEvent, encode(event))
    assert read.origin == "replica-1"
    assert news_of_event(read) == DeskNews("sess", LINE, True)
    (bare,) = desk_events_of(DeskLinesAdded("a", "s1", "sess", ()), origin="r")
    assert news_of_event(bare) == DeskNews("sess", None, False)
