"""The misses inbox's storage, against the embedded MongoDB and the in-memory stand-in
held to the same contract: which turns are in a story's inbox, resolving them, and
ignored texts that never come back."""

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId
from pymongo import AsyncMongoClient

from bot_api.domain.history import AnsweredBy, OutcomeKind, Resolution, TurnRecord
from bot_api.history.documents import FIRST_VECTOR_MODEL, turn_from_document, turn_to_document
from bot_api.history.repository import StoredTurn, TurnRepository
from bot_api.inbox.repository import MAX_INBOX_TURNS, InboxRepository
from integration.bot_api.history.memory import TurnsInMemory
from integration.bot_api.inbox.memory import InboxInMemory
from shared.config import Config

T0 = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=1)
"""Yesterday at 9:00: stored turns expire 30 days after their time (a TTL index), so a fixed
date stops being read a month later."""
STORY, OTHER = str(ObjectId()), str(ObjectId())
MODEL = "model-1"
RESOLVED = Resolution("account-1", "assigned", T0, "i-1")


@dataclass
class Backend:
    inbox: InboxRepository | InboxInMemory
    turns: TurnRepository | TurnsInMemory
    """What the history recorder writes through, to the same `turns` collection."""
    insert: Callable[[list[dict[str, Any]]], Awaitable[None]]
    read: Callable[[str], Awaitable[dict[str, Any]]]


@pytest.fixture(params=["mongodb", "memory"])
async def backend(
    request: pytest.FixtureRequest, config: Config, mongo_client: AsyncMongoClient
) -> AsyncIterator[Backend]:
    if request.param == "memory":
        collection = TurnsInMemory()
        fake = InboxInMemory(collection)

        async def read_fake(turn_id: str) -> dict[str, Any]:
            return next(d for d in fake.turns if str(d["_id"]) == turn_id)

        yield Backend(fake, collection, fake.insert_turns, read_fake)
        return
    repository = InboxRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    turns = TurnRepository(mongo_client[config.bot_database])
    await turns.ensure_indexes()

    async def insert(documents: list[dict[str, Any]]) -> None:
        await repository.turns.insert_many(documents)

    async def read(turn_id: str) -> dict[str, Any]:
        document = await repository.turns.find_one({"_id": ObjectId(turn_id)})
        assert document is not None
        return document

    yield Backend(repository, turns, insert, read)


def turn(
    query: str | None,
    outcome: OutcomeKind = "fallback",
    score: float = 0.1,
    minutes: int = 0,
    story: str = STORY,
    vector: tuple[float, ...] | None = None,
    vector_model: str = MODEL,
    test: bool = False,
    account: str = "account-1",
    language: str | None = None,
) -> dict[str, Any]:
    record = TurnRecord(
        account_id=account,
        story_id=story,
        session_id="visitor",
        at=T0 + timedelta(minutes=minutes),
        outcome=outcome,
        query=query,
        trigger=None if query else "hello",
        interaction=AnsweredBy("i-1", "Hours", "standard"),
        score=score,
        threshold=0.5,
        vector=vector,
        vector_model=None if vector is None else vector_model,
        test=test,
        language=language,
        answered_in=None if language is None else "en",
    )
    return {"_id": ObjectId(), **turn_to_document(record, T0 + timedelta(days=30))}


async def test_a_turn_the_recorder_stored_is_read_by_the_inbox(backend: Backend) -> None:
    """The recorder's store and the inbox share the `turns` collection: a miss written
    through the one is in the other, with its sentence vector (stored as float16)."""
    missed = TurnRecord(
        "account-1",
        STORY,
        "visitor",
        T0,
        "fallback",
        query="gift cards?",
        vector=(0.5, -0.25),
        vector_model=MODEL,
    )
    matched = TurnRecord("account-1", STORY, "visitor", T0, "matched", query="hours", score=0.9)
    stored = [StoredTurn(str(ObjectId()), t, T0 + timedelta(days=30)) for t in (missed, matched)]

    await backend.turns.insert_many(stored)

    misses = await backend.inbox.unresolved(STORY, 0.65, MODEL)
    assert [(m.turn_id, m.text, m.vector) for m in misses] == [
        (stored[0].id, "gift cards?", (0.5, -0.25))
    ]


async def test_the_inbox_holds_fallbacks_and_matches_below_review_newest_first(
    backend: Backend,
) -> None:
    await backend.insert(
        [
            turn("refund please", minutes=1, vector=(0.5, 0.25)),
            turn("close call", "matched", score=0.6, minutes=2),
            turn("sure match", "matched", score=0.9, minutes=3),
            turn(None, "trigger", score=1.0, minutes=4),
            turn("other story", story=OTHER, minutes=5),
        ]
    )
    misses = await backend.inbox.unresolved(STORY, 0.65, MODEL)
    assert [(m.text, m.at, m.vector) for m in misses] == [
        ("close call", T0 + timedelta(minutes=2), None),
        ("refund please", T0 + timedelta(minutes=1), (0.5, 0.25)),
    ]


async def test_a_low_match_that_starts_a_prompt_is_a_miss_but_a_prompt_answered_is_not(
    backend: Backend,
) -> None:
    """ "can I get a loan" → pay_cc 0.61 asked for a parameter (outcome `incomplete`):
    a miss like a low match; a reply the prompt took is stored at 1.0 and stays out even
    when `reviewBelow` (the confidence + 0.15) is above 1. Several accounts and stories."""
    await backend.insert(
        [
            turn("can I get a loan", "incomplete", score=0.61, minutes=1),
            turn("large", "incomplete", score=1.0, minutes=2),
            turn("pay my card", "incomplete", score=0.9, minutes=3),
            turn("a loan please", "incomplete", score=0.6, story=OTHER, account="account-2"),
            turn("refund please", minutes=4),
        ]
    )
    assert [m.text for m in await backend.inbox.unresolved(STORY, 0.65, MODEL)] == [
        "refund please",
        "can I get a loan",
    ]
    assert [m.text for m in await backend.inbox.unresolved(STORY, 1.05, MODEL)] == [
        "refund please",
        "pay my card",
        "can I get a loan",
    ]
    assert [m.text for m in await backend.inbox.unresolved(OTHER, 0.65, MODEL)] == ["a loan please"]


async def test_the_test_chats_turns_are_never_in_the_inbox(backend: Backend) -> None:
    """A turn stored before turns said whether they were the test chat's has no `test`."""
    older = turn("stored before the mark", minutes=2)
    del older["test"]
    await backend.insert(
        [
            turn("tried in the console", test=True),
            turn("a close one from the console", "matched", score=0.6, test=True),
            turn("a real visitor", minutes=1),
            older,
        ]
    )
    assert [m.text for m in await backend.inbox.unresolved(STORY, 0.65, MODEL)] == [
        "stored before the mark",
        "a real visitor",
    ]


async def test_resolved_turns_leave_the_inbox_and_keep_who_resolved_them(
    backend: Backend,
) -> None:
    await backend.insert([turn("refund please"), turn("refund please", minutes=1)])
    first, second = await backend.inbox.unresolved(STORY, 0.65, MODEL)
    assert await backend.inbox.resolve(STORY, [first.turn_id], RESOLVED) == 1
    assert await backend.inbox.resolve(OTHER, [second.turn_id], RESOLVED) == 0
    assert await backend.inbox.resolve(STORY, [first.turn_id], RESOLVED) == 0
    assert [m.turn_id for m in await backend.inbox.unresolved(STORY, 0.65, MODEL)] == [
        second.turn_id
    ]
    assert turn_from_document(await backend.read(first.turn_id)).resolution == RESOLVED


async def test_an_ignored_text_never_comes_back_in_any_spelling(backend: Backend) -> None:
    await backend.insert([turn("Refund please!"), turn("what is this")])
    await backend.inbox.ignore(STORY, ["refund   PLEASE"], "account-1", T0)
    await backend.inbox.ignore(STORY, ["refund please"], "account-1", T0)  # twice is fine
    await backend.insert([turn("refund, please", minutes=9)])
    assert [m.text for m in await backend.inbox.unresolved(STORY, 0.65, MODEL)] == ["what is this"]
    await backend.insert([turn("refund please", story=OTHER)])
    assert [m.text for m in await backend.inbox.unresolved(OTHER, 0.65, MODEL)] == ["refund please"]
    await backend.inbox.delete_for_story(STORY)
    assert len(await backend.inbox.unresolved(STORY, 0.65, MODEL)) == 3


async def test_the_inbox_reads_the_newest_turns_only(backend: Backend) -> None:
    await backend.insert([turn(f"message {n}", minutes=n) for n in range(MAX_INBOX_TURNS + 5)])
    misses = await backend.inbox.unresolved(STORY, 0.65, MODEL)
    assert len(misses) == MAX_INBOX_TURNS
    assert misses[0].text == f"message {MAX_INBOX_TURNS + 4}"
    assert misses[-1].text == "message 5"


async def test_the_turns_recorded_since_a_time_are_read_alone(backend: Backend) -> None:
    """What the inbox reads between whole reads (inbox/clustering.py)."""
    await backend.insert([turn(f"message {n}", minutes=n) for n in range(4)])
    since = await backend.inbox.unresolved(STORY, 0.65, MODEL, T0 + timedelta(minutes=2))
    assert [m.text for m in since] == ["message 3", "message 2"]


async def test_reopened_turns_come_back_and_their_ignored_texts_are_forgotten(
    backend: Backend,
) -> None:
    await backend.insert(
        [turn("refund please"), turn("What is this?", minutes=1), turn("what is this", minutes=2)]
    )
    refund, other, same = sorted(
        await backend.inbox.unresolved(STORY, 0.65, MODEL), key=lambda m: m.at
    )
    await backend.inbox.resolve(STORY, [refund.turn_id], RESOLVED)
    await backend.inbox.ignore(STORY, ["what is this"], "account-1", T0)
    ignored = Resolution("account-1", "ignored", T0)
    await backend.inbox.resolve(STORY, [other.turn_id, same.turn_id], ignored)
    assert await backend.inbox.reopen(OTHER, [refund.turn_id, other.turn_id]) == 0
    assert await backend.inbox.reopen(STORY, [refund.turn_id]) == 1
    assert await backend.inbox.reopen(STORY, [refund.turn_id]) == 0
    assert [m.text for m in await backend.inbox.unresolved(STORY, 0.65, MODEL)] == ["refund please"]
    assert await backend.inbox.reopen(STORY, [other.turn_id]) == 1
    assert [m.text for m in await backend.inbox.unresolved(STORY, 0.65, MODEL)] == [
        "What is this?",
        "refund please",
    ]


async def test_the_newest_turn_of_each_text_carries_its_vector(backend: Backend) -> None:
    await backend.insert(
        [
            turn("refund please", minutes=1, vector=(0.5, 0.25)),
            turn("Refund please!", minutes=2, vector=(0.5, 0.25)),
            turn("hello there", minutes=3),
        ]
    )
    misses = await backend.inbox.unresolved(STORY, 0.65, MODEL)
    assert [(m.text, m.vector) for m in misses] == [
        ("hello there", None),
        ("Refund please!", (0.5, 0.25)),
        ("refund please", None),
    ]


async def test_only_vectors_of_the_model_reading_the_story_are_carried(backend: Backend) -> None:
    """A story whose language or answerAnyLanguage changed is read by another model: the
    vectors of its earlier turns are not comparable with the new ones."""
    earlier = turn("refund please", minutes=1, vector=(0.5, 0.25), vector_model="model-0")
    unnamed = turn("opening hours", minutes=2, vector=(0.25, 0.5))
    del unnamed["vectorModel"]  # recorded before turns named their model
    await backend.insert([earlier, unnamed, turn("gift cards", minutes=3, vector=(1.0, 0.0))])
    misses = await backend.inbox.unresolved(STORY, 0.65, MODEL)
    assert [(m.text, m.vector) for m in misses] == [
        ("gift cards", (1.0, 0.0)),
        ("opening hours", None),
        ("refund please", None),
    ]
    misses = await backend.inbox.unresolved(STORY, 0.65, FIRST_VECTOR_MODEL)
    assert [m.vector for m in misses] == [None, (0.25, 0.5), None]
    assert [m.vector for m in await backend.inbox.unresolved(STORY, 0.65, None)] == [None] * 3


async def test_each_miss_carries_the_language_its_turn_was_read_in(backend: Backend) -> None:
    """Two accounts' stories: each miss is read with its language (none for a turn of a
    story of one language), newest first, the others' left out."""
    await backend.insert(
        [
            turn("wo ist meine Bestellung", minutes=1, language="de"),
            turn("where is my order", minutes=2, language="en"),
            turn("dónde está mi pedido", minutes=3, story=OTHER, account="b", language="es"),
            turn("ou est ma commande", "matched", score=0.6, minutes=4, language="fr"),
            turn("order status", minutes=5),
            turn("wo bleibt sie", "matched", score=0.9, minutes=6, language="de"),
        ]
    )
    mine = await backend.inbox.unresolved(STORY, 0.65, MODEL)
    assert [(m.text, m.language) for m in mine] == [
        ("order status", None),
        ("ou est ma commande", "fr"),
        ("where is my order", "en"),
        ("wo ist meine Bestellung", "de"),
    ]
    since = await backend.inbox.unresolved(STORY, 0.65, MODEL, T0 + timedelta(minutes=4))
    assert [(m.text, m.language) for m in since] == [
        ("order status", None),
        ("ou est ma commande", "fr"),
    ]
    theirs = await backend.inbox.unresolved(OTHER, 0.65, MODEL)
    assert [(m.text, m.language) for m in theirs] == [("dónde está mi pedido", "es")]
