"""A channel's turn as /query's body (bot_api/query/channel_turns.py): a platform's
message longer than /query takes is cut to its first 2,048 characters, and said so; a
turn asked again under its id is answered once."""

import asyncio
import functools
from dataclasses import replace

import pytest

from bot_api.query.channel_turns import REMEMBERED_TURNS, Repeats, channel_turn
from shared.events import ChannelTurn, ChannelTurnReply

TURN = ChannelTurn(
    account_id="65f0c0ffee65f0c0ffee0001",
    story_id="65f0c0ffee65f0c0ffee0002",
    session_id="channel1:chat7:user7",
    source="telegram",
    query="hello",
    trigger=None,
    goto=None,
    parameters={},
)


def test_a_message_longer_than_query_takes_is_matched_on_its_first_2048_characters() -> None:
    said = "".join(f"{n:04d} " for n in range(820))  # 4,100 characters

    body, turn = channel_turn(replace(TURN, query=said))

    assert body["query"] == turn.query == said[:2048]
    assert turn.truncated


def test_a_message_query_takes_is_as_said() -> None:
    body, turn = channel_turn(replace(TURN, query="x" * 2048))

    assert (body["query"], turn.truncated) == ("x" * 2048, False)
    assert body["parameters"] == {"default_source": "telegram"}


async def test_a_turn_asked_again_gets_the_first_s_reply_and_is_answered_once() -> None:
    repeats = Repeats()
    answered: list[str] = []
    release = asyncio.Event()

    async def answer(turn_id: str) -> ChannelTurnReply:
        answered.append(turn_id)
        await release.wait()
        return ChannelTurnReply(200, f"reply to {turn_id}")

    first = asyncio.create_task(repeats.once("t1", lambda: answer("t1")))
    await asyncio.sleep(0)
    while_answering = asyncio.create_task(repeats.once("t1", lambda: answer("t1")))
    other = asyncio.create_task(repeats.once("t2", lambda: answer("t2")))
    release.set()
    replies = await asyncio.gather(first, while_answering, other)
    afterwards = await repeats.once("t1", lambda: answer("t1"))

    assert [r.body for r in [*replies, afterwards]] == ["reply to t1"] * 2 + [
        "reply to t2",
        "reply to t1",
    ]
    assert answered == ["t1", "t2"]


async def test_a_cancelled_turn_is_answered_anew_and_old_replies_are_forgotten() -> None:
    repeats = Repeats()
    answered: list[str] = []

    async def answer(turn_id: str) -> ChannelTurnReply:
        answered.append(turn_id)
        return ChannelTurnReply(200, turn_id)

    async def never() -> ChannelTurnReply:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    cancelled = asyncio.create_task(repeats.once("t0", never))
    await asyncio.sleep(0)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert (await repeats.once("t0", lambda: answer("t0"))).body == "t0"
    for n in range(REMEMBERED_TURNS):
        await repeats.once(f"n{n}", functools.partial(answer, f"n{n}"))
    await repeats.once("t0", lambda: answer("t0"))
    assert answered.count("t0") == 2  # forgotten after REMEMBERED_TURNS others
    assert len(repeats._replies) == REMEMBERED_TURNS
