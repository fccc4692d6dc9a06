"""Slack's channel module: its request signature, url_verification, what it reads, and
that every call it renders is one Slack takes (the stand-in's checks)."""

import json
from typing import Any

import pytest

from integrations_api.channels.platform import Call, Incoming, Pause, Request, Skipped
from integrations_api.channels.slack import PLATFORM as slack
from shared.fulfillment import Card, Item
from support.platforms.answers import AT_THE_LIMITS, EVERY_KIND, GOTO, UNSENDABLE_PARTS
from support.platforms.slack import (
    CHANNEL,
    USER,
    click,
    message_event,
    message_problems,
    signed_headers,
)

CREDENTIALS = {"botToken": "xoxb-test", "signingSecret": "signing-secret"}
USER_MESSAGE = Incoming("Ev1", conversation="C024BE91L", user="U2147483697", query="hi")

# Slack's documented example ("Verifying requests from Slack"): a slash command's body,
# its timestamp, the signing secret and the signature Slack computed.
DOCUMENTED_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
DOCUMENTED_TIMESTAMP = 1531420618
DOCUMENTED_BODY = (
    b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
    b"&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
    b"&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
    b"&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
)
DOCUMENTED_SIGNATURE = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"


def request(body: bytes, headers: dict[str, str]) -> Request:
    return Request("POST", {k.lower(): v for k, v in headers.items()}, {}, body)


def documented(body: bytes = DOCUMENTED_BODY, signature: str = DOCUMENTED_SIGNATURE) -> Request:
    headers = {
        "X-Slack-Request-Timestamp": str(DOCUMENTED_TIMESTAMP),
        "X-Slack-Signature": signature,
    }
    return request(body, headers)


def test_slacks_documented_example_is_authentic() -> None:
    credentials = {**CREDENTIALS, "signingSecret": DOCUMENTED_SECRET}

    assert slack.authenticate(credentials, documented(), now=DOCUMENTED_TIMESTAMP + 10)


def test_the_stand_ins_signing_gives_slacks_documented_signature() -> None:
    headers = signed_headers(DOCUMENTED_SECRET, DOCUMENTED_BODY, DOCUMENTED_TIMESTAMP)

    assert headers["X-Slack-Signature"] == DOCUMENTED_SIGNATURE


@pytest.mark.parametrize(
    ("change", "now_offset"),
    [
        ({"body": DOCUMENTED_BODY + b"&admin=true"}, 10),
        ({"signature": DOCUMENTED_SIGNATURE[:-1] + "0"}, 10),
        ({"signature": ""}, 10),
        ({"signature": "v0=é"}, 10),
        ({}, 301),
        ({}, -301),
    ],
    ids=[
        "body changed",
        "signature changed",
        "no signature",
        "not ascii",
        "too old",
        "from the future",
    ],
)
def test_a_changed_body_or_signature_or_a_timestamp_out_of_five_minutes_is_refused(
    change: dict[str, Any], now_offset: int
) -> None:
    credentials = {**CREDENTIALS, "signingSecret": DOCUMENTED_SECRET}

    assert not slack.authenticate(
        credentials, documented(**change), DOCUMENTED_TIMESTAMP + now_offset
    )


def test_a_request_without_a_timestamp_is_refused() -> None:
    headers = signed_headers(CREDENTIALS["signingSecret"], b"{}", 1_700_000_000)
    del headers["X-Slack-Request-Timestamp"]

    assert not slack.authenticate(CREDENTIALS, request(b"{}", headers), now=1_700_000_000)


def test_url_verification_is_answered_with_its_challenge_and_an_event_is_not() -> None:
    verification = json.dumps({"token": "t", "challenge": "3eZbrw1aB", "type": "url_verification"})

    reply = slack.challenge(CREDENTIALS, request(verification.encode(), {}))
    assert reply is not None
    assert (reply.status, reply.text) == (200, "3eZbrw1aB")
    assert slack.challenge(CREDENTIALS, request(message_event("Ev08MFMKH6"), {})) is None
    assert slack.challenge(CREDENTIALS, request(b"payload=%7B%7D", {})) is None


def test_a_users_message_is_read_with_its_event_id_channel_and_user() -> None:
    [incoming] = slack.read(CREDENTIALS, message_event("Ev08MFMKH6", "fish &amp; chips &lt;3"))

    assert incoming == Incoming(
        "Ev08MFMKH6", conversation=CHANNEL, user=USER, query="fish & chips <3"
    )


@pytest.mark.parametrize(
    "event",
    [
        {"bot_id": "B1"},
        {"subtype": "message_changed"},
        {"subtype": "channel_join"},
        {"type": "reaction_added"},
        {"text": " "},
    ],
    ids=["Parley's own message", "an edit", "a join", "another event", "no text"],
)
def test_bot_messages_edits_and_other_events_are_not_answered(event: dict[str, Any]) -> None:
    assert slack.read(CREDENTIALS, message_event("Ev08MFMKH6", **event)) == []


def test_a_click_comes_back_as_the_query_or_the_goto_its_button_carries() -> None:
    [said] = slack.read(CREDENTIALS, click("1335.4287.9b2a", value="q:Large"))
    [jumped] = slack.read(CREDENTIALS, click("1335.4287.9b2a", value="g:" + GOTO))

    assert (said.query, said.goto, said.delivery_id) == ("Large", None, "click:1335.4287.9b2a")
    assert (jumped.query, jumped.goto) == (None, GOTO)
    assert (jumped.conversation, jumped.user) == (CHANNEL, USER)
    assert slack.read(CREDENTIALS, click("1335.4287.9b2a", url="https://pizza.example")) == []


def test_a_body_slack_never_sends_is_refused() -> None:
    with pytest.raises(ValueError):
        slack.read(CREDENTIALS, b"[1, 2]")
    with pytest.raises(ValueError):
        slack.read(CREDENTIALS, b"not json")
    with pytest.raises(ValueError):
        slack.read(CREDENTIALS, b'{"type": "event_callback", "event_id": "Ev1"}')
    with pytest.raises(ValueError):
        slack.read(
            CREDENTIALS,
            b"payload=%7B%22type%22%3A%20%22block_actions%22%2C%20%22channel%22%3A%201%7D",
        )


def calls(outgoing: list[Any]) -> list[Call]:
    return [one for one in outgoing if isinstance(one, Call)]


def test_every_kind_of_answer_becomes_messages_and_blocks_in_order() -> None:
    outgoing = slack.render(CREDENTIALS, USER_MESSAGE, EVERY_KIND)

    assert [type(one) for one in outgoing] == [Call, Call, Call, Pause, Call, Call]
    assert outgoing[3] == Pause(1.5)
    sent = calls(outgoing)
    assert {call.path for call in sent} == {"/api/chat.postMessage"}
    assert {call.headers["Authorization"] for call in sent} == {"Bearer xoxb-test"}
    assert {call.json["channel"] for call in sent} == {"C024BE91L"}
    text, quick, card, template, image = (call.json for call in sent)
    assert text == {"channel": "C024BE91L", "text": "Hello &amp; welcome &lt;friend&gt;"}
    assert [e["value"] for e in quick["blocks"][1]["elements"]] == ["q:Small", "q:Large"]
    assert card["blocks"][0]["text"]["text"] == "*Margherita*\nTomato, mozzarella"
    assert card["blocks"][0]["accessory"]["image_url"] == "https://img.example/margherita.png"
    order, menu, website = card["blocks"][1]["elements"]
    assert (order["value"], menu["value"]) == ("q:order a margherita", "g:" + GOTO)
    assert website["url"] == "https://pizza.example/margherita" and "value" not in website
    assert [e["text"]["text"] for e in template["blocks"][1]["elements"]] == [
        "No"
    ]  # no phone button
    assert image["blocks"] == [
        {"type": "image", "image_url": "https://img.example/oven.jpg", "alt_text": "image"}
    ]


@pytest.mark.parametrize(
    "fulfillment",
    [EVERY_KIND, AT_THE_LIMITS, UNSENDABLE_PARTS],
    ids=["every kind", "at the limits", "unsendable parts"],
)
def test_every_rendered_call_is_one_slack_takes(fulfillment: tuple[Item, ...]) -> None:
    sent = calls(slack.render(CREDENTIALS, USER_MESSAGE, fulfillment))

    assert sent
    assert [message_problems(dict(call.json)) for call in sent] == [("", [])] * len(sent)
    handoff = slack.text(CREDENTIALS, "C1", "y" * 5000)
    assert [call.json["text"] for call in handoff] == ["y" * 4000, "y" * 1000]
    assert [message_problems(dict(call.json)) for call in handoff] == [("", [])] * 2


def test_a_long_postback_is_said_as_the_buttons_title_and_a_long_text_in_pieces() -> None:
    first, second, _, _, card, *_ = calls(slack.render(CREDENTIALS, USER_MESSAGE, AT_THE_LIMITS))

    assert (first.json["text"], second.json["text"]) == ("x" * 4000, "x" * 1000)
    assert card.json["blocks"][1]["elements"][0]["value"] == "q:" + "b" * 20


def test_the_stand_in_refuses_what_slack_refuses() -> None:
    button = {"type": "button", "text": {"type": "plain_text", "text": "b" * 76}, "value": "v"}
    too_long = {"channel": "C1", "blocks": [{"type": "actions", "elements": [button]}]}

    assert message_problems(too_long)[0] == "invalid_blocks"
    assert message_problems({"channel": "C1"})[0] == "no_text"
    assert message_problems({"text": "hi"})[0] == "channel_not_found"
    assert (
        message_problems({"channel": "C1", "text": "hi", "attachments": []})[0]
        == "invalid_arguments"
    )


def test_a_text_slack_would_read_as_markup_is_escaped_and_a_long_image_address_left_out() -> None:
    outgoing = slack.render(CREDENTIALS, USER_MESSAGE, UNSENDABLE_PARTS)
    sent = calls(outgoing)

    assert sent[0].json["text"] == "&lt;!channel&gt; &amp; &lt;@U2147483697&gt;: free pizza"
    assert Skipped("image_url_too_long") in outgoing
    assert "i" * 3000 not in json.dumps([call.json for call in sent])
    assert sent[-1].json["text"] == "The last one still goes"
    title = Card("Fish & <chips>", "<!here>", "", ())
    (card,) = calls(slack.render(CREDENTIALS, USER_MESSAGE, [title]))
    assert card.json["blocks"][0]["text"]["text"] == "*Fish &amp; &lt;chips&gt;*\n&lt;!here&gt;"
    assert card.json["text"] == "Fish &amp; &lt;chips&gt;"


def test_a_persons_long_message_goes_in_pieces_cut_between_words_escaped() -> None:
    said = " ".join(["a<b>&c"] * 1000)  # 6,999 characters, 16,999 escaped

    pieces = [call.json["text"] for call in slack.text(CREDENTIALS, CHANNEL, said)]

    assert max(len(piece) for piece in pieces) <= 4000
    assert " ".join(pieces) == " ".join(["a&lt;b&gt;&amp;c"] * 1000)
    assert [message_problems({"channel": CHANNEL, "text": piece}) for piece in pieces] == [
        ("", [])
    ] * len(pieces)


def test_the_stand_in_refuses_a_text_slack_would_read_as_markup() -> None:
    for text in ("<!channel> hi", "fish & chips", "a > b"):
        error, problems = message_problems({"channel": "C1", "text": text})
        assert error == "invalid_arguments" and "unescaped" in problems[0], text
    section = {"type": "section", "text": {"type": "mrkdwn", "text": "<!here>"}}
    assert message_problems({"channel": "C1", "blocks": [section]})[0] == "invalid_blocks"
    assert message_problems({"channel": "C1", "text": "fish &amp; chips &lt;3"}) == ("", [])
