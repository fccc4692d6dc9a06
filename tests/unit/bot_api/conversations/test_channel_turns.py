"""A channel's turn as /query's body (bot_api/conversations/channel_turns.py): a platform's
message longer than /query takes is cut to its first 2,048 characters, and said so."""

from dataclasses import replace

from bot_api.conversations.channel_turns import channel_turn
from shared.events import ChannelTurn

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
