"""The history recorder: turns are queued by /query and written in batches behind it;
while the database is away they wait and are tried again; past the backlog the oldest
are dropped and counted; listeners hear of each batch once it is stored."""

import asyncio
import dataclasses
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from bot_api.domain import redaction
from bot_api.domain.history import TurnRecord
from bot_api.domain.interactions import Interaction
from bot_api.domain.responses import Image, Text
from bot_api.domain.settings import Settings
from bot_api.engine.turn import Outcome, OutcomeContext, Turn
from bot_api.history import recorder as history
from bot_api.history.recorder import TurnRecorder, fulfillment_summary, redacted, turn_record
from bot_api.history.repository import StoredTurn
from bot_api.metrics import HISTORY_TURNS_DROPPED
from integration.bot_api.history.memory import TurnsInMemory
from shared.ids import new_object_id

AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def stored(text: str, session: str = "visitor") -> StoredTurn:
    record = TurnRecord("a1", "s1", session, AT, "fallback", query=text)
    return StoredTurn(new_object_id(), record, AT + timedelta(days=30))


class Heard:
    def __init__(self) -> None:
        self.batches: list[list[str | None]] = []

    async def turns_written(self, turns: Sequence[TurnRecord]) -> None:
        self.batches.append([t.query for t in turns])


async def test_turns_queued_meanwhile_are_written_together_and_listeners_hear_of_them() -> None:
    store, heard = TurnsInMemory(), Heard()
    recorder = TurnRecorder(store, [heard], gather_seconds=0)
    for text in ("one", "two", "three"):
        recorder.record(stored(text))
    assert store.turns == {}, "nothing is written while /query runs"
    await recorder.idle()
    assert store.batches == [3]
    assert heard.batches == [["one", "two", "three"]]
    assert [t.query for t in await store.transcript("s1", "visitor")] == ["one", "two", "three"]


async def test_an_erased_session_s_queued_turns_are_never_written() -> None:
    store = TurnsInMemory()
    recorder = TurnRecorder(store, gather_seconds=60)
    for text, session in (("gone", "visitor"), ("kept", "other"), ("gone too", "visitor")):
        recorder.record(stored(text, session))
    assert recorder.forget("s1", "visitor") == 2
    assert recorder.forget("another story", "other") == 0
    await recorder.idle()
    assert await store.transcript("s1", "visitor") == []
    assert [t.query for t in await store.transcript("s1", "other")] == ["kept"]


async def test_while_the_database_is_away_turns_wait_and_are_written_once_it_is_back() -> None:
    store, heard = TurnsInMemory(), Heard()
    store.away = True
    recorder = TurnRecorder(store, [heard], retry_seconds=0.01, gather_seconds=0)
    recorder.record(stored("kept"))
    await asyncio.sleep(0.05)
    assert recorder.backlog == 1 and heard.batches == []
    store.away = False
    await recorder.idle()
    assert [t.query for t in await store.transcript("s1", "visitor")] == ["kept"]
    assert heard.batches == [["kept"]]


async def test_past_the_backlog_the_oldest_turns_are_dropped_and_counted() -> None:
    store = TurnsInMemory()
    store.away = True
    recorder = TurnRecorder(store, max_backlog=3, retry_seconds=0.01, gather_seconds=0)
    dropped_before = HISTORY_TURNS_DROPPED._value.get()
    for number in range(5):
        recorder.record(stored(f"message {number}"))
        await asyncio.sleep(0)
    await asyncio.sleep(0.03)
    assert recorder.backlog == 3
    assert HISTORY_TURNS_DROPPED._value.get() - dropped_before == 2
    store.away = False
    await recorder.idle()
    stored_texts = [t.query for t in await store.transcript("s1", "visitor")]
    assert stored_texts == ["message 2", "message 3", "message 4"]


async def test_a_failing_listener_neither_loses_turns_nor_stops_the_others() -> None:
    class Failing:
        async def turns_written(self, turns: Sequence[TurnRecord]) -> None:
            raise RuntimeError("counters broken")

    store, heard = TurnsInMemory(), Heard()
    recorder = TurnRecorder(store, [Failing(), heard], gather_seconds=0)
    recorder.record(stored("still stored"))
    await recorder.idle()
    assert heard.batches == [["still stored"]]
    assert len(store.turns) == 1


def outcome() -> Outcome:
    order = Interaction(
        id="i1",
        kind="standard",
        name="Order",
        action="",
        triggers=(),
        user_says=("a pizza",),
        parameters=(),
        responses=(),
        webhook="http://x",
    )
    return Outcome(
        story_id="s1",
        interaction=order,
        score=0.9,
        threshold=0.5,
        lifespan=2,
        incomplete=False,
        parameters={"phone": "+44 20 7946 0958", "default_source": "widget"},
        contexts=(OutcomeContext("i1", "Order", 2),),
        fulfillment=(Text("Sent to jo@example.com"),),
    )


def test_a_turn_record_is_redacted_and_expires_after_the_story_s_history_days() -> None:
    said = Turn(query="my card is 4111 1111 1111 1111, mail jo@example.com")
    settings = Settings(history_days=7)
    as_said = turn_record(
        account_id="a1",
        session_id="visitor",
        settings=settings,
        turn=said,
        outcome=outcome(),
        webhook="ok",
        started=0.0,
        at=AT,
    )
    record = redacted(as_said, settings)
    assert record.expires_at == AT + timedelta(days=7)
    turn = record.turn
    assert turn.query == "my card is [card], mail [email]"
    assert turn.parameters == {"phone": "[phone]", "default_source": "widget"}
    assert turn.fulfillment == "Sent to [email]"
    assert (turn.outcome, turn.webhook, turn.default_source) == ("matched", "ok", "widget")
    assert turn.interaction is not None and turn.interaction.name == "Order"
    assert turn.contexts == ("Order",)


def test_a_turn_records_the_language_it_was_read_and_answered_in_when_it_has_one() -> None:
    def recorded(language: str, answered_in: str) -> TurnRecord:
        read = dataclasses.replace(outcome(), language=language, answered_in=answered_in)
        return turn_record(
            account_id="a1",
            session_id="visitor",
            settings=Settings(languages=("de",)),
            turn=Turn(query="Ich möchte eine Pizza"),
            outcome=read,
            webhook=None,
            started=0.0,
            at=AT,
        ).turn

    german = recorded("de", "en")
    assert (german.language, german.answered_in) == ("de", "en")
    one_language = recorded("", "")
    assert (one_language.language, one_language.answered_in) == (None, None)


async def test_with_redact_off_the_turn_is_kept_as_said() -> None:
    store = TurnsInMemory()
    recorder = TurnRecorder(store, gather_seconds=0)
    answered(recorder, Settings(redact=False), Turn(query="mail jo@example.com"))
    answered(recorder, Settings(), Turn(query="mail jo@example.com"))
    await recorder.idle()
    turns = await store.transcript("s1", "visitor")
    assert [t.query for t in turns] == ["mail jo@example.com", "mail [email]"]
    assert [t.parameters["phone"] for t in turns] == ["+44 20 7946 0958", "[phone]"]


def test_the_fulfillment_summary_says_the_texts_and_names_the_rest_cut_short() -> None:
    assert fulfillment_summary((Text("Hi"), Image("http://i/p.png"))) == "Hi | [image]"
    assert len(fulfillment_summary((Text("x" * 900),))) == 500


def answered(recorder: TurnRecorder, settings: Settings, turn: Turn) -> None:
    recorder.answered(
        account_id="a1",
        session_id="visitor",
        settings=settings,
        turn=turn,
        outcome=outcome(),
        webhook=None,
        started=0.0,
    )


async def test_a_story_without_history_records_nothing() -> None:
    store = TurnsInMemory()
    recorder = TurnRecorder(store, gather_seconds=0)
    answered(recorder, Settings(history=False), Turn(query="hello"))
    answered(recorder, Settings(), Turn(query="hello again"))
    await recorder.idle()
    assert [t.query for t in await store.transcript("s1", "visitor")] == ["hello again"]


async def test_a_turn_that_cannot_be_recorded_is_counted_and_does_not_fail_the_answer() -> None:
    store = TurnsInMemory()
    recorder = TurnRecorder(store, gather_seconds=0)
    dropped_before = HISTORY_TURNS_DROPPED._value.get()
    answered(recorder, Settings(language="no such language"), Turn(query="call +44 20 7946 0958"))
    assert HISTORY_TURNS_DROPPED._value.get() - dropped_before == 0, "an unknown region is fine"
    answered(recorder, Settings(history_days=10**9), Turn(query="hello"))
    assert HISTORY_TURNS_DROPPED._value.get() - dropped_before == 1
    await recorder.idle()
    assert len(store.turns) == 1


async def test_at_shutdown_what_is_queued_is_written_first() -> None:
    store = TurnsInMemory()
    recorder = TurnRecorder(store)
    recorder.record(stored("last words"))
    await recorder.close()
    assert [t.query for t in await store.transcript("s1", "visitor")] == ["last words"]


async def test_waiting_for_the_queue_to_be_stored_does_not_wait_for_the_batch_to_fill() -> None:
    store = TurnsInMemory()
    recorder = TurnRecorder(store, gather_seconds=60)
    recorder.record(stored("now"))
    await asyncio.sleep(0.01)
    async with asyncio.timeout(5):
        await recorder.idle()
    assert [t.query for t in await store.transcript("s1", "visitor")] == ["now"]
    recorder.record(stored("later"))
    await asyncio.sleep(0.05)
    assert store.batches == [1], "once written, the next batch gathers again"
    async with asyncio.timeout(5):
        await recorder.idle()
    assert store.batches == [1, 1]


async def test_a_turn_is_redacted_in_a_thread_as_its_batch_is_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redaction took up to 0.56 s for a hostile message (history.py): never on the loop."""
    threads: list[threading.Thread] = []

    def watched_redact(text: str, region: str | None) -> str:
        threads.append(threading.current_thread())
        return redaction.redact(text, region)

    monkeypatch.setattr(history, "redact", watched_redact)
    store = TurnsInMemory()
    recorder = TurnRecorder(store, gather_seconds=0)
    answered(recorder, Settings(), Turn(query="call me on 0044 20 7946 0958"))
    assert threads == []
    await recorder.idle()
    assert [t.query for t in await store.transcript("s1", "visitor")] == ["call me on [phone]"]
    assert threads and threading.main_thread() not in threads
