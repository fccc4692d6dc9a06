"""The event codec: what goes over NATS, and what a consumer refuses to read."""

import json
import re

import pytest

from shared.events import (
    ChannelTurn,
    ConnectionChanged,
    ConversationErasedEvent,
    DeliveryResult,
    EntitiesChanged,
    KnowledgeChanged,
    StoryChanged,
    StoryLookup,
    StoryLookupReply,
    UndecodableEvent,
    decode,
    encode,
)

EVENTS = [
    StoryLookup("acc", "story"),
    StoryLookupReply(found=True, name="Support"),
    StoryLookupReply(found=False),
    StoryChanged("acc", "story", ("i1", "i2"), origin="replica-1"),
    StoryChanged("acc", "story", deleted=True),
    EntitiesChanged("acc", origin="replica-1"),
    ConnectionChanged(
        "conn", "acc", "story", "CRM", "https://crm.test/hook", 3,
        token="secret", headers={"X-Team": "blue"}, auth={"username": "u", "password": "p"},
    ),
    ConnectionChanged("conn", "acc", "story", "CRM", "https://crm.test/hook", 4, deleted=True),
    DeliveryResult("acc", "conn", "timeout", 1_700_000_000_000),
    DeliveryResult("acc", "conn", None, 1_700_000_000_001),
    ConversationErasedEvent("acc", "story", "visitor-1", origin="replica-1"),
    KnowledgeChanged("acc", "story", origin="replica-1"),
]  # fmt: skip


@pytest.mark.parametrize("event", EVENTS, ids=lambda event: type(event).__name__)
def test_every_event_reads_back_as_it_was_written(event: object) -> None:
    assert decode(type(event), encode(event)) == event


def test_the_wire_names_are_camel_case_after_the_version() -> None:
    written = encode(StoryChanged("acc", "story", ("i1",), deleted=False, origin="r"))
    assert written == (
        b'{"v": 1, "accountId": "acc", "storyId": "story", "interactionIds": ["i1"], '
        b'"deleted": false, "origin": "r"}'
    )
    assert list(json.loads(encode(DeliveryResult("acc", "conn", None, 5)))) == [
        "v", "accountId", "connectionId", "error", "atMs",
    ]  # fmt: skip


def test_a_connection_event_names_its_connection_id() -> None:
    payload = json.loads(encode(EVENTS[6]))
    assert payload["id"] == "conn"
    assert "connectionId" not in payload


def story_changed_payload(**changes: object) -> bytes:
    payload = json.loads(encode(StoryChanged("acc", "story", ("i1",))))
    payload.update(changes)
    return json.dumps(payload).encode()


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\x00\xff garbage", "not JSON"),
        (b"{not json", "not JSON"),
        (b'["v", 1]', "unknown version"),
        (story_changed_payload(v=2), "unknown version"),
        (story_changed_payload(v="1"), "unknown version"),
        (b'{"accountId": "acc", "storyId": "s"}', "unknown version"),
        (b'{"v": 1, "accountId": "acc", "interactionIds": [], "deleted": false, "origin": ""}',
         "without storyId"),
        (story_changed_payload(storyId=7), "StoryChanged.storyId"),
        (story_changed_payload(interactionIds="i1"), "StoryChanged.interactionIds"),
        (story_changed_payload(interactionIds=["i1", 2]), "StoryChanged.interactionIds"),
        (story_changed_payload(deleted=1), "StoryChanged.deleted"),
        (story_changed_payload(origin=None), "StoryChanged.origin"),
    ],
)  # fmt: skip
def test_an_event_that_cannot_be_read_is_undecodable(data: bytes, reason: str) -> None:
    with pytest.raises(UndecodableEvent, match=re.escape(reason)):
        decode(StoryChanged, data)


DELIVERY = b'{"v": 1, "accountId": "a", "connectionId": "c", "error": null, "atMs": 5}'


@pytest.mark.parametrize(
    ("event_type", "data", "reason"),
    [
        (DeliveryResult, DELIVERY.replace(b'"atMs": 5', b'"atMs": true'), "DeliveryResult.atMs"),
        (DeliveryResult, DELIVERY.replace(b'"atMs": 5', b'"atMs": 5.5'), "DeliveryResult.atMs"),
        (DeliveryResult, DELIVERY.replace(b"null", b"404"), "DeliveryResult.error"),
        (
            ConnectionChanged,
            encode(EVENTS[7]).replace(b'"headers": null', b'"headers": {"X": 1}'),
            "ConnectionChanged.headers",
        ),
    ],
)
def test_numbers_and_optional_fields_are_checked_too(
    event_type: type[object], data: bytes, reason: str
) -> None:
    assert decode(DeliveryResult, DELIVERY) == DeliveryResult("a", "c", None, 5)
    with pytest.raises(UndecodableEvent, match=re.escape(reason)):
        decode(event_type, data)


def test_fields_a_newer_publisher_adds_are_ignored() -> None:
    data = story_changed_payload(priority="high")
    assert decode(StoryChanged, data) == StoryChanged("acc", "story", ("i1",))


def test_a_field_with_a_default_may_be_missing_as_an_older_sender_leaves_it_out() -> None:
    older = json.dumps({"v": 1, "accountId": "a", "storyId": "s", "sessionId": "x",
                        "source": "telegram", "query": "hi", "trigger": None, "goto": None,
                        "parameters": {}}).encode()  # fmt: skip
    assert decode(ChannelTurn, older).user_name is None
    with pytest.raises(UndecodableEvent, match="without sessionId"):
        decode(ChannelTurn, older.replace(b'"sessionId": "x", ', b""))
