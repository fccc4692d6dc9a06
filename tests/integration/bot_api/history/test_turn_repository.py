"""TurnRepository on the embedded MongoDB and its in-memory twin, held to one contract:
two stories, three conversations each; every call reads or changes exactly what it
names."""

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from pymongo import AsyncMongoClient

from bot_api.domain.history import AnsweredBy, OutcomeKind, Person, TurnRecord
from bot_api.history.repository import ConversationFilter, StoredTurn, TurnRepository, TurnStore
from integration.bot_api.history.memory import TurnsInMemory
from shared.config import Config
from shared.ids import new_object_id

START = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=1)
"""Yesterday at 9:00: stored turns expire 30 days after their time (a TTL index), so a fixed
date stops being read a month later."""
ORDER = AnsweredBy("i-order", "Order", "standard")
FALLBACK = AnsweredBy("i-fallback", "Fallback", "fallback")


@pytest.fixture(params=["mongodb", "memory"])
async def turns(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[TurnStore]:
    store: TurnStore
    if request.param == "mongodb":
        store = TurnRepository(mongo_client[config.bot_database])
    else:
        store = TurnsInMemory()
    await store.ensure_indexes()
    yield store


def turn(story: str, session: str, minute: int, query: str, outcome: OutcomeKind) -> StoredTurn:
    at = START + timedelta(minutes=minute)
    record = TurnRecord(
        account_id="a1",
        story_id=story,
        session_id=session,
        at=at,
        outcome=outcome,
        query=query,
        interaction=FALLBACK if outcome == "fallback" else ORDER,
        score=0.2 if outcome == "fallback" else 0.9,
        threshold=0.5,
    )
    return StoredTurn(new_object_id(), record, at + timedelta(days=30))


def seed() -> tuple[str, str, list[StoredTurn]]:
    """Story A: "early" (minutes 0-1, one fallback), "middle" (5), "late" (10-12, two
    batches' worth); story B has the same session names."""
    a, b = new_object_id(), new_object_id()
    batch = []
    for story in (a, b):
        batch += [
            turn(story, "early", 0, "hello", "matched"),
            turn(story, "early", 1, "refund my card", "fallback"),
            turn(story, "middle", 5, "a pizza", "matched"),
            turn(story, "late", 10, "two pizzas", "matched"),
            turn(story, "late", 12, "Make it LARGE", "matched"),
        ]
    return a, b, batch


async def sessions(store: TurnStore, story: str, found: ConversationFilter) -> list[str]:
    page = await store.conversations_page(story, found, None, 10)
    return [s.session_id for s in page.items]


async def test_conversations_come_newest_first_with_their_counts_page_by_page(
    turns: TurnStore,
) -> None:
    a, b, batch = seed()
    await turns.insert_many(batch[:3] + batch[5:7])
    await turns.insert_many(batch[3:5] + batch[7:])
    first = await turns.conversations_page(a, ConversationFilter(), None, 2)
    assert [(s.session_id, s.turns, s.fallbacks) for s in first.items] == [
        ("late", 2, 0),
        ("middle", 1, 0),
    ]
    assert first.items[0].started == START + timedelta(minutes=10)
    assert first.items[0].last_at == START + timedelta(minutes=12)
    assert first.next_cursor is not None
    second = await turns.conversations_page(a, ConversationFilter(), first.next_cursor, 2)
    assert [(s.session_id, s.turns, s.fallbacks) for s in second.items] == [("early", 2, 1)]
    assert second.next_cursor is None
    assert second.items[0].started == START
    assert await sessions(turns, b, ConversationFilter()) == ["late", "middle", "early"]


async def test_a_batch_stored_again_after_a_failure_counts_once(turns: TurnStore) -> None:
    a, _, batch = seed()
    await turns.insert_many(batch)
    await turns.insert_many(batch[:1])
    assert len(await turns.transcript(a, "early")) == 2


async def test_the_filters_choose_the_conversations(turns: TurnStore) -> None:
    a, b, batch = seed()
    await turns.insert_many(batch)
    assert await sessions(turns, a, ConversationFilter(outcome="fallback")) == ["early"]
    assert await sessions(turns, a, ConversationFilter(interaction="i-fallback")) == ["early"]
    assert await sessions(turns, a, ConversationFilter(text="PIZZA")) == ["late", "middle"]
    assert await sessions(turns, a, ConversationFilter(text="nobody said this")) == []
    window = ConversationFilter(
        since=START + timedelta(minutes=2), until=START + timedelta(minutes=10)
    )
    assert await sessions(turns, a, window) == ["middle"]
    assert await sessions(turns, b, ConversationFilter(outcome="incomplete")) == []


async def test_conversations_are_filtered_by_source_channel_and_test_chat(
    turns: TurnStore,
) -> None:
    """A conversation is listed by every source and channel it had a turn of, over
    several batches; the test chat's are apart. Two stories share the session names."""
    a, b = new_object_id(), new_object_id()

    def said(story: str, session: str, minute: int, **marks: object) -> StoredTurn:
        stored = turn(story, session, minute, "hello", "matched")
        return replace(stored, turn=replace(stored.turn, **marks))

    await turns.insert_many(
        [
            said(a, "console", 0, default_source="console", test=True),
            said(a, "widget", 1, default_source="widget"),
            said(a, "telegram", 2, default_source="telegram", channel="c-1"),
            said(b, "telegram", 3, default_source="telegram", channel="c-2"),
        ]
    )
    await turns.insert_many(
        [
            said(a, "widget", 4, default_source="slack", channel="c-3"),
            said(a, "console", 5, default_source="console", test=True),
        ]
    )
    assert await sessions(turns, a, ConversationFilter(source="widget")) == ["widget"]
    assert await sessions(turns, a, ConversationFilter(source="slack")) == ["widget"]
    assert await sessions(turns, a, ConversationFilter(source="telegram")) == ["telegram"]
    assert await sessions(turns, a, ConversationFilter(channel="c-1")) == ["telegram"]
    assert await sessions(turns, a, ConversationFilter(channel="c-2")) == []
    assert await sessions(turns, b, ConversationFilter(channel="c-2")) == ["telegram"]
    assert await sessions(turns, a, ConversationFilter(test=True)) == ["console"]
    assert await sessions(turns, a, ConversationFilter(test=False)) == ["widget", "telegram"]
    assert await sessions(turns, a, ConversationFilter(test=False, source="console")) == []
    page = await turns.conversations_page(a, ConversationFilter(test=True), None, 10)
    assert page.items[0].turns == 2
    marked = await turns.transcript(a, "telegram")
    assert [(t.default_source, t.channel, t.test) for t in marked] == [("telegram", "c-1", False)]


async def test_a_conversation_over_several_batches_adds_up_in_its_summary(
    turns: TurnStore,
) -> None:
    """Each batch changes only what it must in the stored summary: what it adds to the
    counts and sets, and the first turn when an older one comes late."""
    a, b, _ = seed()
    await turns.insert_many([turn(a, "long", 5, "hello", "matched")])
    await turns.insert_many([turn(a, "long", 6, "hello again", "matched")])
    await turns.insert_many(
        [turn(a, "long", 7, "what now", "fallback"), turn(b, "long", 7, "hi", "matched")]
    )
    await turns.insert_many([turn(a, "long", 3, "an old one", "matched")])
    (summary,) = (await turns.conversations_page(a, ConversationFilter(), None, 10)).items
    assert (summary.turns, summary.fallbacks) == (4, 1)
    assert summary.started == START + timedelta(minutes=3)
    assert summary.last_at == START + timedelta(minutes=7)
    assert await sessions(turns, a, ConversationFilter(outcome="fallback")) == ["long"]
    assert await sessions(turns, a, ConversationFilter(outcome="matched")) == ["long"]
    assert await sessions(turns, a, ConversationFilter(interaction="i-fallback")) == ["long"]
    assert await sessions(turns, a, ConversationFilter(interaction="i-order")) == ["long"]
    assert await sessions(turns, b, ConversationFilter(outcome="fallback")) == []


async def test_a_transcript_is_that_conversation_oldest_first(turns: TurnStore) -> None:
    _, b, batch = seed()
    await turns.insert_many(batch[::-1])
    transcript = await turns.transcript(b, "late")
    assert [t.query for t in transcript] == ["two pizzas", "Make it LARGE"]
    assert {t.story_id for t in transcript} == {b}
    assert transcript[1] == batch[9].turn
    stored = await turns.stored_transcript(b, "late")
    assert [(t.id, t.turn) for t in stored] == [
        (t.id, t.turn) for t in batch if t.turn.story_id == b and t.turn.session_id == "late"
    ]


async def test_a_desk_turn_keeps_who_wrote_it_took_it_over_and_gave_it_back(
    turns: TurnStore,
) -> None:
    story = new_object_id()
    person = Person("Ana Lima", "agent", "m1")
    taken_over = TurnRecord("acct", story, "s", START, "handoff", person=person, taken_over=True)
    written = replace(taken_over, at=START + timedelta(seconds=30), fulfillment="Hi, Ana here",
                      taken_over=False)  # fmt: skip
    given_back = replace(written, at=START + timedelta(minutes=1), given_back=True,
                         person=Person("Account owner", "owner"))  # fmt: skip
    await turns.insert_many([StoredTurn(new_object_id(), t, START + timedelta(days=30))
                             for t in (taken_over, written, given_back)])  # fmt: skip
    assert await turns.transcript(story, "s") == [taken_over, written, given_back]


async def test_export_reads_a_time_range_oldest_first_up_to_the_limit(turns: TurnStore) -> None:
    a, _, batch = seed()
    await turns.insert_many(batch)
    since, until = START + timedelta(minutes=1), START + timedelta(minutes=12)
    exported = [t.query async for t in turns.export(a, since, until, 10)]
    assert exported == ["refund my card", "a pizza", "two pizzas"]
    assert [t.query async for t in turns.export(a, since, until, 1)] == ["refund my card"]
    everything = [t.query async for t in turns.export(a, None, None, 10)]
    assert everything == ["hello", "refund my card", "a pizza", "two pizzas", "Make it LARGE"]


async def test_deleting_a_conversation_or_a_story_removes_exactly_that(turns: TurnStore) -> None:
    a, b, batch = seed()
    await turns.insert_many(batch)
    assert await turns.delete_conversation(a, "early")
    assert not await turns.delete_conversation(a, "early")
    assert await turns.transcript(a, "early") == []
    assert await sessions(turns, a, ConversationFilter()) == ["late", "middle"]
    assert len(await turns.transcript(b, "early")) == 2
    await turns.delete_for_story(b)
    assert await sessions(turns, b, ConversationFilter()) == []
    assert await turns.transcript(b, "late") == []
    assert await sessions(turns, a, ConversationFilter()) == ["late", "middle"]


async def test_a_cursor_not_written_by_the_listing_is_refused(turns: TurnStore) -> None:
    with pytest.raises(ValueError):
        await turns.conversations_page(new_object_id(), ConversationFilter(), "bm90IGpzb24", 5)


async def test_conversations_are_filtered_by_the_language_turns_were_read_in(
    turns: TurnStore,
) -> None:
    """Two accounts' stories with the same session names: a conversation is listed by
    every language one of its turns was read in, over several batches, with the other
    filters and page by page; a turn of a story of one language records none."""
    a, b = new_object_id(), new_object_id()

    def read_in(
        story: str, session: str, minute: int, language: str | None, **marks: object
    ) -> StoredTurn:
        stored = turn(story, session, minute, "hallo", "matched")
        account = "a1" if story == a else "a2"
        answered = None if language is None else "en" if language == "fr" else language
        record = replace(
            stored.turn, account_id=account, language=language, answered_in=answered, **marks
        )
        return replace(stored, turn=record)

    await turns.insert_many(
        [
            read_in(a, "anna", 0, "de"),
            read_in(a, "bert", 1, "en"),
            read_in(a, "carl", 2, "de", default_source="widget"),
            read_in(a, "dora", 3, None),
            read_in(b, "anna", 4, "fr"),
        ]
    )
    await turns.insert_many(
        [
            read_in(a, "bert", 5, "de", outcome="fallback"),
            read_in(a, "erik", 6, "fr"),
            read_in(b, "bert", 7, "de"),
        ]
    )
    assert await sessions(turns, a, ConversationFilter(language="de")) == ["bert", "carl", "anna"]
    assert await sessions(turns, a, ConversationFilter(language="en")) == ["bert"]
    assert await sessions(turns, a, ConversationFilter(language="fr")) == ["erik"]
    assert await sessions(turns, a, ConversationFilter(language="it")) == []
    assert await sessions(turns, b, ConversationFilter(language="fr")) == ["anna"]
    assert await sessions(turns, b, ConversationFilter(language="de")) == ["bert"]
    assert await sessions(turns, a, ConversationFilter()) == [
        "erik",
        "bert",
        "dora",
        "carl",
        "anna",
    ]
    both = ConversationFilter(language="de", outcome="fallback")
    assert await sessions(turns, a, both) == ["bert"]
    assert await sessions(turns, a, ConversationFilter(language="de", source="widget")) == ["carl"]
    window = ConversationFilter(language="de", until=START + timedelta(minutes=1))
    assert await sessions(turns, a, window) == ["anna"]

    first = await turns.conversations_page(a, ConversationFilter(language="de"), None, 2)
    assert [s.session_id for s in first.items] == ["bert", "carl"]
    assert first.items[0].turns == 2
    second = await turns.conversations_page(
        a, ConversationFilter(language="de"), first.next_cursor, 2
    )
    assert ([s.session_id for s in second.items], second.next_cursor) == (["anna"], None)

    bert = await turns.transcript(a, "bert")
    assert [(t.language, t.answered_in, t.account_id) for t in bert] == [
        ("en", "en", "a1"),
        ("de", "de", "a1"),
    ]
    (erik,) = await turns.transcript(a, "erik")
    assert (erik.language, erik.answered_in) == ("fr", "en")
    (dora,) = await turns.transcript(a, "dora")
    assert (dora.language, dora.answered_in) == (None, None)


async def test_a_conversation_summarised_before_its_sets_were_kept_takes_its_next_ones(
    turns: TurnStore,
) -> None:
    """A summary stored without `languages` and `sources` (before they were kept) is not
    listed by them until a turn that has them joins it, in a later batch."""
    story = new_object_id()
    await turns.insert_many([turn(story, "old", 0, "hallo", "matched")])
    if isinstance(turns, TurnRepository):
        await turns.conversations.update_many({}, {"$unset": {"languages": "", "sources": ""}})
    else:
        assert isinstance(turns, TurnsInMemory)
        for summary in turns.summaries.values():
            del summary["languages"], summary["sources"]
    both = ConversationFilter(language="de", source="widget")
    assert await sessions(turns, story, both) == []
    later = turn(story, "old", 1, "noch einmal", "matched")
    marked = replace(later.turn, language="de", default_source="widget")
    await turns.insert_many([replace(later, turn=marked)])
    assert await sessions(turns, story, both) == ["old"]
    (summary,) = (await turns.conversations_page(story, ConversationFilter(), None, 10)).items
    assert summary.turns == 2
