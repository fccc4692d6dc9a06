"""Record ids: 24 hexadecimal digits, the form MongoDB ObjectIds are written in; a
channel's, 32 (random); and the session ids of channels' users, which /query refuses."""

import re

import pytest
from bson import ObjectId

from bot_api.query.schemas import CHANNEL_SESSION_PATTERN
from integrations_api.channels.service import session_id
from shared.ids import (
    is_channel_session,
    is_object_id,
    new_channel_id,
    new_object_id,
    object_id,
)


def test_a_new_id_is_an_id_and_names_its_object_id() -> None:
    created = new_object_id()
    assert is_object_id(created)
    assert object_id(created) == ObjectId(created)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "65f0c0ffee",
        "65f0c0ffee65f0c0ffee65f0c",
        "65f0c0ffee65f0c0ffee65fg",
        "65f0c0ffee65f0c0ffee65f0\n",
    ],
)
def test_anything_else_is_no_id(value: str) -> None:
    assert not is_object_id(value)
    assert object_id(value) is None


def test_ids_are_written_in_lowercase_but_read_in_either_case() -> None:
    written = "65f0c0ffee65f0c0ffee65f0"
    assert not is_object_id(written.upper())
    assert object_id(written.upper()) == ObjectId(written)


def test_a_new_channel_id_is_128_random_bits_in_hex() -> None:
    made = {new_channel_id() for _ in range(1000)}
    assert len(made) == 1000
    assert all(re.fullmatch(r"[0-9a-f]{32}", channel_id) for channel_id in made)


NEW_CHANNEL = "9f86d081884c7d659a2feaa0c55ad015"
OLD_CHANNEL = "65f0c0ffee65f0c0ffee65f0"


@pytest.mark.parametrize(
    ("conversation", "user"),
    [
        ("-1001234567890", "123456789"),  # Telegram: a group chat and its user
        ("C024BE91L", "U2147483697"),  # Slack: a conversation and a member
        ("6254477777772919", "6254477777772919"),  # Messenger: the PSID twice
        ("16315551181", "16315551181"),  # WhatsApp: the wa_id twice
    ],
)
def test_every_platform_s_session_ids_are_channel_sessions(conversation: str, user: str) -> None:
    for channel_id in (NEW_CHANNEL, OLD_CHANNEL, NEW_CHANNEL.upper(), OLD_CHANNEL.upper()):
        assert is_channel_session(session_id(channel_id, conversation, user))


@pytest.mark.parametrize(
    "session",
    [
        "demo",
        "3f2b8a0e-7c1d-4e5f-9a6b-1c2d3e4f5a6b",  # the widget's
        f"{NEW_CHANNEL}:16315551181",  # one colon: not a channel's
        f"{NEW_CHANNEL[:-1]}:16315551181:16315551181",
        f"x{OLD_CHANNEL}:16315551181:16315551181",
        f"{OLD_CHANNEL[:-1]}g:1:1",
        ":1:1",
    ],
)
def test_other_session_ids_are_query_s(session: str) -> None:
    assert not is_channel_session(session)


def test_the_openapi_document_states_the_same_rule() -> None:
    """/query's OpenAPI document refuses what is_channel_session does (schemathesis
    generates from it)."""
    pattern = re.compile(CHANNEL_SESSION_PATTERN)
    forms = [
        session_id(NEW_CHANNEL, "C024BE91L", "U2147483697"),
        session_id(OLD_CHANNEL.upper(), "1", "2"),
        f"{NEW_CHANNEL}:a\nb:c",
        f"{NEW_CHANNEL}:16315551181",
        "demo",
        f"x{OLD_CHANNEL}:1:1",
    ]
    for form in forms:
        assert bool(pattern.search(form)) == is_channel_session(form), form
