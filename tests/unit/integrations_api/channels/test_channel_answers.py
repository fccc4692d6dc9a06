"""What every platform does alike with an answer (channels/answers.py)."""

from typing import Any

from integrations_api.channels.answers import (
    Button,
    Shows,
    calls_with_delays,
    chunks,
    fitted_value,
    is_web_address,
    not_shown,
    quick_reply_buttons,
    read_buttons,
    read_click,
    sendable,
)
from integrations_api.channels.platform import Call, Pause, Skipped
from shared import fulfillment
from shared.fulfillment import ButtonTemplate, Card, Handoff, Image, QuickReplies, Text, item_of

AS_THEY_ARE: Shows[Any] = Shows(
    text=lambda item: [item],
    quick_replies=lambda item: [item],
    image=lambda item: [item],
    card=lambda item: [item],
    button_template=lambda item: [item],
    handoff=not_shown,
)
"""A platform whose message is the item as `sendable` left it."""


def sent(item: Any) -> Call:
    return Call("/send", {"item": item})


def test_buttons_are_read_as_the_console_reads_them() -> None:
    buttons = read_buttons(
        [
            fulfillment.Button("Say", "hello"),
            fulfillment.Button("Title only", ""),
            fulfillment.Button("Jump", "0f8f", "goto"),
            fulfillment.Button("Site", "https://a.example"),
            fulfillment.Button("View", "http://b.example", "webview"),
            fulfillment.Button("Script", "javascript:alert(1)", "url"),
            fulfillment.Button("Call", "tel:+33 (1) 23-45", "phone"),
            fulfillment.Button("Bad number", "call me", "phone"),
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
    stored = QuickReplies("Size?", ("S", "L"))
    from_webhook = QuickReplies("Size?", ("S", "L"), (fulfillment.Button("S", "0f8f", "goto"),))

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


def test_long_texts_go_in_pieces_cut_between_words() -> None:
    assert chunks("abcdefg", 3) == ["abc", "def", "g"]
    assert chunks("", 3) == []
    assert chunks(" \n ", 3) == []
    assert chunks("one two three four", 9) == ["one two", "three", "four"]
    assert chunks("one two\nthree  four", 13) == ["one two\nthree", "four"]
    assert chunks("a <b> c", 6, size=lambda piece: len(piece.replace("<", "&lt;"))) == [
        "a",
        "<b>",
        "c",
    ]
    person = " ".join(f"word{n}" for n in range(1000))  # 7,889 characters
    pieces = chunks(person, 2000)
    assert len(pieces) == 4 and max(len(piece) for piece in pieces) <= 2000
    assert " ".join(pieces) == person  # each cut at a space between two words


def test_a_web_address_is_absolute_http_with_a_host_and_no_space() -> None:
    good = ["https://img.example/a.png", "http://127.0.0.1:8080/a?b=c&d=e#f", "HTTPS://A.EXAMPLE"]
    bad = [
        "not a url at all",
        "https://",
        "https:// img.example",
        "https://a b.example/",
        "https://img.example/a b.png",
        "ftp://img.example/a",
        "/relative.png",
        "javascript:alert(1)",
        "https://a.example:port/",
        "https://[::1/",
        "https://a\n.b",
    ]

    assert [is_web_address(url) for url in good] == [True] * len(good)
    assert [url for url in bad if is_web_address(url)] == []


def test_what_no_platform_takes_is_left_out_counted_and_the_items_after_it_still_go() -> None:
    answer = [
        Image("not a url at all"),
        Text("   "),
        Image("https://img.example/" + "i" * 100),
        Text("after them", delay=500),
    ]
    assert calls_with_delays(answer, AS_THEY_ARE, sent, url_limit=100) == [
        Skipped("image_url_invalid"),
        Skipped("nothing_to_show"),
        Skipped("image_url_too_long"),
        Pause(0.5),
        sent(Text("after them", delay=500)),
    ]


def test_blank_labels_are_left_out_and_a_blank_title_over_buttons_is_a_placeholder() -> None:
    card = item_of(
        {
            "type": "card",
            "title": " ",
            "subtitle": "Sub",
            "imageUrl": "https://",
            "buttons": [
                {"title": "", "postback": "x"},
                {"title": "Go", "postback": "go"},
                {"title": "Site", "postback": "https://a.example/" + "p" * 50},
            ],
        }
    )
    replies = QuickReplies("", (" ", "Yes"))

    assert sendable(card, url_limit=40) == (
        Card("Sub", "", "", (fulfillment.Button("Go", "go"),)),
        [Skipped("image_url_invalid"), Skipped("blank_label"), Skipped("link_url_too_long")],
    )
    assert sendable(replies) == (QuickReplies("…", ("Yes",)), [Skipped("blank_label")])
    image_only = Card("", "", "https://i.example/a.png", (), delay=300)
    assert sendable(image_only)[0] == Image("https://i.example/a.png", delay=300)
    nothing = ButtonTemplate("", (fulfillment.Button(" ", "x"),))
    assert sendable(nothing) == (None, [Skipped("blank_label"), Skipped("nothing_to_show")])
    handoff = Handoff("c")
    assert sendable(handoff) == (handoff, [])


def test_a_delay_is_a_pause_in_seconds_before_an_item_that_shows_something() -> None:
    answer = [Text("a"), Handoff("c", delay=500), Text("b", delay=1500)]
    assert calls_with_delays(answer, AS_THEY_ARE, sent) == [
        sent(Text("a")),
        Pause(1.5),
        sent(Text("b", delay=1500)),
    ]
