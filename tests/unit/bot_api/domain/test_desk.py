"""The agent desk's values (domain/desk.py): how a user is named, and the transcript
lines of a recorded turn."""

from datetime import UTC, datetime

from bot_api.domain.desk import channel_title, entries_of, user_label
from bot_api.domain.history import Person, TurnRecord

NOON = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
ANA = Person("Ana Lima", "agent", "m1")


def turn(**fields: object) -> TurnRecord:
    return TurnRecord("acct", "story", "s", NOON, **fields)  # type: ignore[arg-type]


def test_a_user_is_named_by_the_channel_else_by_a_short_label_of_the_session() -> None:
    assert user_label("c:4242:77", "Ana Souza", "telegram") == "Ana Souza"
    assert user_label("c:D123:U024BE7LH", None, "slack") == "Slack user U024BE7LH"
    visitor = user_label("b0a1-widget-session", None, None)
    assert visitor.startswith("Visitor ") and len(visitor) == len("Visitor 3f9a")
    assert visitor == user_label("b0a1-widget-session", None, "widget")
    assert visitor != user_label("another-session", None, None)
    assert user_label("a:b:c", None, "sms") == user_label("a:b:c", None, None)  # no platform's
    assert [channel_title(s) for s in ("telegram", None, "whatsapp", "sms")] == [
        "Telegram", "Widget", "WhatsApp", "sms"
    ]  # fmt: skip


def test_a_recorded_turn_is_the_user_s_line_and_the_bot_s() -> None:
    lines = entries_of("t1", turn(outcome="matched", query="hello", fulfillment="Hi!"))
    assert [(e.id, e.speaker, e.text, e.person) for e in lines] == [
        ("t1:0", "user", "hello", None),
        ("t1:1", "bot", "Hi!", None),
    ]
    assert (
        entries_of("t2", turn(outcome="trigger", trigger="welcome", fulfillment="Hey"))[0].speaker
        == "bot"
    )
    assert [e.speaker for e in entries_of("t3", turn(outcome="handoff", query="still there?"))] == [
        "user"
    ]


def test_a_person_s_message_is_theirs_and_the_return_to_the_bot_a_note() -> None:
    (wrote,) = entries_of("t4", turn(outcome="handoff", fulfillment="Ana here", person=ANA))
    assert (wrote.speaker, wrote.text, wrote.person) == ("person", "Ana here", ANA)
    (older,) = entries_of("t5", turn(outcome="handoff", fulfillment="Bob here"))
    assert (older.speaker, older.person) == ("person", None)  # stored before the desk
    note, told = entries_of(
        "t6", turn(outcome="handoff", fulfillment="Bot again.", person=ANA, given_back=True)
    )
    assert (note.speaker, note.text, note.person) == (
        "note", "Ana Lima gave the conversation back to the bot", ANA
    )  # fmt: skip
    assert (told.speaker, told.text) == ("bot", "Bot again.")


def test_a_take_over_is_a_note_naming_the_person() -> None:
    (note,) = entries_of("t7", turn(outcome="handoff", person=ANA, taken_over=True))
    assert (note.id, note.speaker, note.text, note.person) == (
        "t7:0", "note", "Ana Lima took the conversation over", ANA
    )  # fmt: skip
