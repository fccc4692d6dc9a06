"""A turn's key finds the answer of the same key asking the same thing, and a session
keeps the last REMEMBERED_REPLIES answers (bot_api/query/repeats.py)."""

import uuid

from bot_api.query.repeats import REMEMBERED_REPLIES, TurnKey
from bot_api.query.repository import TurnReply


def test_a_key_finds_its_answer_only_when_it_asks_the_same() -> None:
    asked = {"sessionId": "s1", "query": "big", "parameters": {"b": 1, "a": 2}}
    key = TurnKey.of("k1", asked)
    replies = key.remembered((), {"result": {"said": "ok"}})

    assert TurnKey.of("k1", dict(reversed(asked.items()))).answered(replies) == {
        "result": {"said": "ok"}
    }
    assert TurnKey.of("k1", {**asked, "query": "small"}).answered(replies) is None
    assert TurnKey.of("k2", asked).answered(replies) is None


def test_a_session_keeps_the_last_answers() -> None:
    replies: tuple[TurnReply, ...] = ()
    keys = [TurnKey.of(f"k{n}", {"n": n}) for n in range(REMEMBERED_REPLIES + 2)]
    for n, key in enumerate(keys):
        replies = key.remembered(replies, {"n": n})

    assert [key.answered(replies) for key in keys] == [None, None] + [
        {"n": n} for n in range(2, REMEMBERED_REPLIES + 2)
    ]


def test_a_turn_s_webhook_message_id_is_the_same_when_it_is_asked_again() -> None:
    key = TurnKey.of("k1", {"query": "where is my order"})
    first = key.message_id("track")

    assert uuid.UUID(first).version == 5
    assert TurnKey.of("k1", {"query": "where is my order"}).message_id("track") == first
    assert key.message_id("other") != first
    assert TurnKey.of("k1", {"query": "and my refund"}).message_id("track") != first
    assert TurnKey.of("k2", {"query": "where is my order"}).message_id("track") != first
