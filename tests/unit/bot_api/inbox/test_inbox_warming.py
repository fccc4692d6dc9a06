"""The inbox read ahead: a story's first turns that may be misses have its inbox read in
the background once per process, until its inbox changes here; one story at a time,
a failure logged and the next story read."""

import asyncio
from datetime import UTC, datetime

import pytest

from bot_api.domain.history import OutcomeKind, TurnRecord
from bot_api.inbox.warming import MAX_WAITING, READ_AGAIN_AFTER, InboxWarming
from shared.errors import NotFound
from tests.support.held_jobs import until

T0 = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


def turn(
    story: str, outcome: OutcomeKind = "fallback", score: float = 0.1, test: bool = False
) -> TurnRecord:
    """A turn of a story whose confidence threshold is 0.5: below 0.65 it is a miss."""
    return TurnRecord(
        "account-1", story, "s-1", T0, outcome, query="hello", score=score, threshold=0.5, test=test
    )


class Reads:
    """The inbox reads asked for, in order; one at a time, each held until let go."""

    def __init__(self, failing: str | None = None) -> None:
        self.asked: list[tuple[str, str]] = []
        self.running = 0
        self.most_at_once = 0
        self.go = asyncio.Event()
        self.failing = failing

    async def read(self, account_id: str, story_id: str) -> None:
        self.asked.append((account_id, story_id))
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        await self.go.wait()
        self.running -= 1
        if story_id == self.failing:
            raise RuntimeError("the database is away")


async def test_a_storys_first_misses_have_its_inbox_read_once_one_story_at_a_time() -> None:
    reads = Reads()
    warming = InboxWarming(reads.read)
    await warming.turns_written([turn("a"), turn("a"), turn("b", "matched", 0.6)])
    await warming.turns_written([turn("a"), turn("c", "matched", 0.7), turn("d", test=True)])
    await until(lambda: len(reads.asked) == 1)
    reads.go.set()
    await until(lambda: len(reads.asked) == 2 and reads.running == 0)
    assert reads.asked == [("account-1", "a"), ("account-1", "b")]
    assert reads.most_at_once == 1
    await warming.turns_written([turn("a"), turn("b")])
    await asyncio.sleep(0)
    assert len(reads.asked) == 2, "not again before READ_AGAIN_AFTER misses"
    await warming.close()


async def test_a_story_is_read_ahead_again_after_read_again_after_more_misses() -> None:
    """So that the snapshot a person's first read starts from is never far behind."""
    reads = Reads()
    reads.go.set()
    warming = InboxWarming(reads.read)
    await warming.turns_written([turn("a")])
    await until(lambda: len(reads.asked) == 1 and reads.running == 0)
    await warming.turns_written([turn("a")] * (READ_AGAIN_AFTER - 1))
    await warming.turns_written([turn("a", "matched", 1.0)] * 5)  # no misses
    await asyncio.sleep(0)
    assert len(reads.asked) == 1
    await warming.turns_written([turn("a")])
    await until(lambda: len(reads.asked) == 2)
    await warming.close()


async def test_a_change_of_the_inbox_reads_it_again_at_its_next_miss() -> None:
    reads = Reads()
    reads.go.set()
    warming = InboxWarming(reads.read)
    await warming.turns_written([turn("a")])
    await until(lambda: len(reads.asked) == 1 and reads.running == 0)
    warming.changed("a")
    await warming.turns_written([turn("a")])
    await until(lambda: len(reads.asked) == 2)
    await warming.close()


async def test_a_failed_read_is_logged_and_the_next_story_is_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reads = Reads(failing="a")
    reads.go.set()
    warming = InboxWarming(reads.read)
    await warming.turns_written([turn("a"), turn("b")])
    await until(lambda: len(reads.asked) == 2 and reads.running == 0)
    assert "the inbox of story a was not read ahead" in caplog.text
    await warming.close()


async def test_at_most_max_waiting_stories_wait_and_one_past_them_asks_again_later() -> None:
    reads = Reads()
    warming = InboxWarming(reads.read)
    await warming.turns_written([turn(f"s{n}") for n in range(MAX_WAITING + 2)])
    await until(lambda: len(reads.asked) == 1)
    reads.go.set()
    await until(lambda: len(reads.asked) == MAX_WAITING and reads.running == 0)
    await warming.turns_written([turn(f"s{MAX_WAITING + 1}")])
    await until(lambda: reads.asked[-1] == ("account-1", f"s{MAX_WAITING + 1}"))
    await warming.close()


async def test_a_story_deleted_before_its_read_ahead_is_passed_over_without_a_word(
    caplog: pytest.LogCaptureFixture,
) -> None:
    asked: list[str] = []

    async def read(account_id: str, story_id: str) -> None:
        asked.append(story_id)
        if story_id == "gone":
            raise NotFound("no story gone")

    warming = InboxWarming(read)
    await warming.turns_written([turn("gone"), turn("b")])
    await until(lambda: asked == ["gone", "b"])
    assert caplog.text == ""
    await warming.close()
