"""What every platform does alike with an answer (channels/answers.py)."""

from collections.abc import Mapping
from typing import Any

from integrations_api.channels.answers import (
    Button,
    calls_with_delays,
    chunks,
    fitted_value,
    quick_reply_buttons,
    read_buttons,
    read_click,
)
from integrations_api.channels.platform import Call, Pause


def test_buttons_are_read_as_the_console_reads_them() -> None:
    buttons = read_buttons(
        [
            {"title": "Say", "postback": "hello"},
            {"title": "Title only", "postback": ""},
            {"title": "Jump", "postback": "0f8f", "type": "goto"},
            {"title": "Site", "postback": "https://a.example"},
            {"title": "View", "postback": "http://b.example", "type": "webview"},
            {"title": "Script", "postback": "javascript:alert(1)", "type": "url"},
            {"title": "Call", "postback": "tel:+33 (1) 23-45", "type": "phone"},
            {"title": "Bad number", "postback": "call me", "type": "phone"},
        ]
    )

    assert buttons == [
        Button("Say", "reply", value="q:hello"),
        Button("Title only", "reply", value="q:Title only"),
        Button("Jump", "reply", value="g:0f8f"),
        Button("Site", "link", target="https://a.example"),
        Button("View", "link", target="http://b.example"),
        Button("Call", "phone", target="+3312345"),
    ]


def test_quick_replies_are_the_webhooks_buttons_when_it_gave_them() -> None:
    stored = {"type": "quickReply", "messages": [{"title": "Size?", "replies": ["S", "L"]}]}
    from_webhook = {**stored, "buttons": [{"title": "S", "postback": "0f8f", "type": "goto"}]}

    assert quick_reply_buttons(stored) == (
        "Size?",
        [Button("S", "reply", value="q:S"), Button("L", "reply", value="q:L")],
    )
    assert quick_reply_buttons(from_webhook) == ("Size?", [Button("S", "reply", value="g:0f8f")])


def test_a_click_value_too_long_is_the_title_said_and_reads_back() -> None:
    long_query = Button("Order", "reply", value="q:" + "p" * 300)

    assert fitted_value(long_query, 256) == "q:Order"
    assert fitted_value(Button("Go", "reply", value="g:0f8f"), 256) == "g:0f8f"
    assert read_click("q:Order") == ("Order", None)
    assert read_click("g:0f8f") == (None, "0f8f")
    assert read_click("from an older answer") == ("from an older answer", None)


def test_long_texts_go_in_pieces() -> None:
    assert chunks("abcdefg", 3) == ["abc", "def", "g"]
    assert chunks("", 3) == []


def test_a_delay_is_a_pause_in_seconds_before_an_item_that_shows_something() -> None:
    def calls(item: Mapping[str, Any]) -> list[Call]:
        return [] if item["type"] == "handoff" else [Call("/send", {"text": item["message"]})]

    fulfillment = [
        {"type": "text", "message": "a"},
        {"type": "handoff", "connection": "c", "delay": 500},
        {"type": "text", "message": "b", "delay": 1500},
    ]
    assert calls_with_delays(fulfillment, calls) == [
        Call("/send", {"text": "a"}),
        Pause(1.5),
        Call("/send", {"text": "b"}),
    ]
