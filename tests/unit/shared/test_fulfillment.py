"""The answer contract (shared/fulfillment.py): each kind of item written as /query
answers it and read back, and what a reader refuses; carried in a channel's reply."""

import json
from typing import Any, get_args

import pytest

from shared.events import ChannelTurnReply, UndecodableEvent, decode, encode
from shared.fulfillment import (
    Button,
    ButtonTemplate,
    Card,
    Handoff,
    Image,
    Item,
    QuickReplies,
    Text,
    UndecodableAnswer,
    item_body,
    item_of,
)
from shared.fulfillment import decode as decode_answer
from shared.fulfillment import encode as encode_answer

ITEMS: list[Item] = [
    Text("Hello & <welcome>"),
    Text("Later", delay=1500),
    QuickReplies("Size?", ("Small", "Large")),
    QuickReplies("Next?", ("Menu",), (Button("Menu", "0f8f", "goto"),), delay=0),
    Image("https://img.example/oven.jpg"),
    Card("Margherita", "", "", (Button("Site", "https://p.example", "webview", "tall"),)),
    ButtonTemplate("Anything else?", (Button("No", ""), Button("Call", "+331", "phone"))),
    Handoff("65f0c0ffee65f0c0ffee0042", delay=300),
]


def test_the_items_cover_every_kind() -> None:
    assert {type(item) for item in ITEMS} == set(get_args(Item))


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: type(item).__name__)
def test_every_item_reads_back_as_it_was_written(item: Item) -> None:
    assert item_of(item_body(item)) == item
    assert decode_answer(json.loads(json.dumps(encode_answer([item, item])))) == (item, item)


def test_an_item_is_written_as_query_answers_it_key_for_key() -> None:
    written = [json.dumps(item_body(item)) for item in ITEMS[2:4] + ITEMS[5:6]]
    assert written == [
        '{"type": "quickReply", "messages": [{"type": "quickReply", "title": "Size?", '
        '"replies": ["Small", "Large"]}]}',
        '{"type": "quickReply", "messages": [{"type": "quickReply", "title": "Next?", '
        '"replies": ["Menu"]}], "buttons": [{"title": "Menu", "postback": "0f8f", '
        '"type": "goto"}], "delay": 0}',
        '{"type": "card", "title": "Margherita", "subtitle": "", "imageUrl": "", "buttons": '
        '[{"title": "Site", "postback": "https://p.example", "type": "webview", '
        '"height": "tall"}]}',
    ]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({"items": []}, "unknown version of an answer: None"),
        ({"v": 2, "items": []}, "unknown version of an answer: 2"),
        ([], "unknown version of an answer: []"),
        ({"v": 1}, "an answer without its list of items"),
        ({"v": 1, "items": [{"type": "carousel"}]}, "unknown kind of answer item 'carousel'"),
        ({"v": 1, "items": [{"message": "hi"}]}, "unknown kind of answer item None"),
        ({"v": 1, "items": ["hi"]}, "an answer item is not an object: 'hi'"),
        ({"v": 1, "items": [{"type": "text"}]}, "text.message: None is not a string"),
        ({"v": 1, "items": [{"type": "text", "message": 1}]}, "text.message: 1 is not a string"),
        (
            {"v": 1, "items": [{"type": "text", "message": "hi", "delay": True}]},
            "text.delay: True is not a whole number",
        ),
        (
            {"v": 1, "items": [{"type": "image", "imageUrl": "x", "delay": "5"}]},
            "image.delay: '5' is not a whole number",
        ),
        (
            {"v": 1, "items": [{"type": "buttonTemplate", "title": "t"}]},
            "buttonTemplate.buttons: None is not a list",
        ),
        (
            {"v": 1, "items": [{"type": "card", "title": "t", "subtitle": "", "imageUrl": "",
                                "buttons": [{"title": "b"}]}]},
            "card.buttons[0].postback: None is not a string",
        ),
        (
            {"v": 1, "items": [{"type": "quickReply", "messages": []}]},
            "quickReply.messages: 0 messages, not one",
        ),
        (
            {"v": 1, "items": [{"type": "quickReply",
                                "messages": [{"title": "t", "replies": ["a", 2]}]}]},
            "quickReply.messages[0].replies: ['a', 2] is not a list of strings",
        ),
    ],
)  # fmt: skip
def test_an_answer_that_cannot_be_read_is_refused_with_its_reason(value: Any, reason: str) -> None:
    with pytest.raises(UndecodableAnswer) as refused:
        decode_answer(value)
    assert str(refused.value).startswith(reason)


def test_the_kinds_known_are_named_when_one_is_not() -> None:
    with pytest.raises(UndecodableAnswer, match=r"\(known: text, quickReply, image, card, "):
        item_of({"type": "video", "url": "https://v.example"})


def test_fields_an_item_does_not_know_are_ignored() -> None:
    assert item_of({"type": "text", "message": "hi", "speech": "hi"}) == Text("hi")


def test_a_channel_reply_carries_the_answer_in_its_own_version() -> None:
    reply = ChannelTurnReply(200, '{"result": {}}', (Text("hi"), Handoff("c")))
    written = json.loads(encode(reply))

    assert written["answer"] == {
        "v": 1,
        "items": [{"type": "text", "message": "hi"}, {"type": "handoff", "connection": "c"}],
    }
    assert decode(ChannelTurnReply, encode(reply)) == reply
    assert decode(ChannelTurnReply, encode(ChannelTurnReply(404, "{}"))).answer == ()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({"v": 2, "items": []}, "ChannelTurnReply.answer: unknown version of an answer: 2"),
        (
            {"v": 1, "items": [{"type": "carousel"}]},
            "ChannelTurnReply.answer: unknown kind of answer item 'carousel'",
        ),
    ],
)
def test_a_channel_reply_whose_answer_cannot_be_read_is_undecodable(
    answer: Any, reason: str
) -> None:
    data = json.dumps({"v": 1, "status": 200, "body": "{}", "answer": answer}).encode()
    with pytest.raises(UndecodableEvent) as refused:
        decode(ChannelTurnReply, data)
    assert str(refused.value).startswith(reason)
