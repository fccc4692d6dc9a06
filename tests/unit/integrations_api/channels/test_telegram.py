"""channels/telegram.py against the Bot API's documented shapes
(https://core.telegram.org/bots/api): updates read, answers written."""

import json
from typing import Any

import pytest

from integrations_api.channels.platform import Call, Incoming, Pause, Profile, Request, Skipped
from integrations_api.channels.telegram import PLATFORM, set_webhook
from shared.fulfillment import Item, Text
from support.platforms.answers import AT_THE_LIMITS, EVERY_KIND, UNSENDABLE_PARTS, answer
from support.platforms.telegram import CHECKS, click_update, message_update

CREDENTIALS = {"botToken": "123:abc", "webhookSecret": "s3cret_-"}
INCOMING = Incoming("1", "4242", "77")


def request(**headers: str) -> Request:
    return Request("POST", headers, {}, b"{}")


def documented(call: Call) -> tuple[str, dict[str, Any]]:
    """(method, fields) of a call, after the stand-in's check of the method's shape."""
    assert call.path.startswith("/bot123:abc/")
    method = call.path.rsplit("/", 1)[1]
    fields = dict(call.json)
    assert CHECKS[method](fields) == "", fields
    return method, fields


def test_only_the_channel_s_secret_authenticates_an_update() -> None:
    header = "x-telegram-bot-api-secret-token"
    assert PLATFORM.authenticate(CREDENTIALS, request(**{header: "s3cret_-"}), 0)
    for wrong in ("s3cret_", "s3cret_--", "", "S3CRET_-"):
        assert not PLATFORM.authenticate(CREDENTIALS, request(**{header: wrong}), 0)
    assert not PLATFORM.authenticate(CREDENTIALS, request(), 0)
    assert PLATFORM.challenge(CREDENTIALS, request()) is None


def test_a_text_message_is_read_with_the_user_s_profile() -> None:
    body = json.dumps(message_update(10, "hello", chat=-100, user=5, language="it")).encode()
    assert PLATFORM.read(CREDENTIALS, body) == [
        Incoming("10", "-100", "5", query="hello", profile=Profile("Ada Lovelace", "it"))
    ]


def test_the_desk_names_a_user_by_name_else_by_username() -> None:
    update = message_update(10, "hello")
    named = update["message"]["from"]
    assert PLATFORM.read(CREDENTIALS, json.dumps(update).encode())[0].profile.display_name() == (
        "Ada Lovelace"
    )
    update["message"]["from"] = {"id": 5, "is_bot": False, "first_name": "", "username": "ada_l"}
    (handled,) = PLATFORM.read(CREDENTIALS, json.dumps(update).encode())
    assert (handled.profile.name, handled.profile.display_name()) == (None, "@ada_l")
    update["message"]["from"] = {**named, "first_name": "", "last_name": ""}
    (unnamed,) = PLATFORM.read(CREDENTIALS, json.dumps(update).encode())
    assert unnamed.profile.display_name() is None


@pytest.mark.parametrize("text", ["/start", "/start promo-42", "/start@PizzaBot"])
def test_the_start_command_is_the_welcome_trigger(text: str) -> None:
    body = json.dumps(message_update(11, text, chat=5, user=5)).encode()
    (started,) = PLATFORM.read(CREDENTIALS, body)
    assert (started.trigger, started.query) == ("welcome", None)


@pytest.mark.parametrize("text", ["/started", "start", "/stop", "say /start"])
def test_other_texts_are_said_as_they_are(text: str) -> None:
    body = json.dumps(message_update(12, text, chat=5, user=5)).encode()
    (said,) = PLATFORM.read(CREDENTIALS, body)
    assert (said.trigger, said.query) == (None, text)


def test_clicks_come_back_as_their_query_or_goto() -> None:
    (said,) = PLATFORM.read(CREDENTIALS, json.dumps(click_update(3, "q:Large")).encode())
    (jumped,) = PLATFORM.read(CREDENTIALS, json.dumps(click_update(4, "g:abc-123")).encode())
    assert (said.query, said.goto, said.callback, said.conversation) == (
        "Large",
        None,
        "cq3",
        "4242",
    )
    assert (jumped.query, jumped.goto, jumped.callback) == (None, "abc-123", "cq4")


@pytest.mark.parametrize(
    "update",
    [
        {"update_id": 1, "edited_message": {"text": "x"}},
        {"update_id": 2, "message": {"message_id": 1, "chat": {"id": 1}, "date": 0, "photo": []}},
        {"update_id": 3, "inline_query": {"id": "1", "query": "x"}},
    ],
)
def test_other_updates_are_ignored(update: dict[str, Any]) -> None:
    assert PLATFORM.read(CREDENTIALS, json.dumps(update).encode()) == []


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        b"{}",
        b'{"update_id": "1"}',
        b'{"update_id": 1, "message": {"text": "x", "from": {}}}',
    ],
)
def test_a_body_telegram_never_sends_is_a_value_error(body: bytes) -> None:
    with pytest.raises(ValueError):
        PLATFORM.read(CREDENTIALS, body)


def test_each_fulfillment_type_is_a_documented_method() -> None:
    fulfillment = answer([
        {"type": "text", "message": "Hi"},
        {"type": "quickReply",
         "messages": [{"type": "quickReply", "title": "Size?", "replies": ["S", "L"]}]},
        {"type": "card", "title": "T", "subtitle": "S", "imageUrl": "https://i.test/a.png",
         "buttons": [{"title": "Go", "postback": "order", "type": "goto"}]},
        {"type": "card", "title": "No image", "subtitle": "", "imageUrl": "", "buttons": []},
        {"type": "buttonTemplate", "title": "Pick", "buttons": [
            {"title": "Site", "postback": "https://x.test"},
            {"title": "Call", "postback": "+1", "type": "phone"},
            {"title": "Say", "postback": ""}]},
        {"type": "image", "imageUrl": "https://i.test/b.png", "delay": 1500},
        {"type": "handoff", "connection": "c"},
    ])  # fmt: skip
    outgoing = PLATFORM.render(CREDENTIALS, INCOMING, fulfillment)

    assert isinstance(outgoing[6], Pause) and outgoing[6].seconds == 1.5
    assert outgoing[4] == Skipped("button_target_invalid")  # "+1" is no phone number
    calls = [documented(c) for c in outgoing if isinstance(c, Call)]
    assert [method for method, _ in calls] == [
        "sendMessage", "sendMessage", "sendPhoto", "sendMessage", "sendMessage", "sendPhoto"
    ]  # fmt: skip
    text, quick, card, bare, template, image = (fields for _, fields in calls)
    assert text == {"chat_id": 4242, "text": "Hi"}
    assert quick["reply_markup"]["keyboard"] == [[{"text": "S"}], [{"text": "L"}]]
    assert quick["reply_markup"]["one_time_keyboard"] is True
    assert card["caption"] == "T\nS"
    assert card["reply_markup"] == {
        "inline_keyboard": [[{"text": "Go", "callback_data": "g:order"}]]
    }
    assert bare == {"chat_id": 4242, "text": "No image"}
    assert template["reply_markup"] == {"inline_keyboard": [
        [{"text": "Site", "url": "https://x.test"}], [{"text": "Say", "callback_data": "q:Say"}]
    ]}  # fmt: skip
    assert image == {"chat_id": 4242, "photo": "https://i.test/b.png"}


def test_a_click_is_answered_before_the_answer() -> None:
    click = Incoming("1", "4242", "77", query="L", callback="cq1")
    first, second = PLATFORM.render(CREDENTIALS, click, [Text("ok")])
    assert isinstance(first, Call) and isinstance(second, Call)
    assert documented(first) == ("answerCallbackQuery", {"callback_query_id": "cq1"})
    assert documented(second)[0] == "sendMessage"


def test_callback_data_stays_within_64_bytes() -> None:
    template = {"type": "buttonTemplate", "title": "Pick", "buttons": [
        {"title": "Yes", "postback": "yes please"},
        {"title": "Yes", "postback": "y" * 63},
        {"title": "Ünïcödé" * 10, "postback": "p" * 70},
        {"title": "Go", "postback": "3f1c", "type": "goto"}]}  # fmt: skip
    (call,) = PLATFORM.render(CREDENTIALS, INCOMING, answer([template]))
    assert isinstance(call, Call)
    rows = documented(call)[1]["reply_markup"]["inline_keyboard"]
    data = [button["callback_data"] for (button,) in rows]
    assert data[0:2] + data[3:] == ["q:yes please", "q:Yes", "g:3f1c"]
    assert len(data[2].encode()) == 63  # 64 would cut a two-byte character in half
    assert ("q:" + "Ünïcödé" * 10).startswith(data[2])


def test_a_long_text_goes_in_several_messages_and_a_caption_is_cut() -> None:
    long = answer([{"type": "text", "message": "x" * 5000},
            {"type": "card", "title": "t" * 1100, "subtitle": "",
             "imageUrl": "https://i.test/c.png", "buttons": []}])  # fmt: skip
    (text, rest, card) = (
        documented(c)[1]
        for c in PLATFORM.render(CREDENTIALS, INCOMING, long)
        if isinstance(c, Call)
    )
    assert (len(text["text"]), len(rest["text"])) == (4096, 5000 - 4096)
    assert len(card["caption"]) == 1024


def test_a_person_s_text_and_the_webhook_registration() -> None:
    (said,) = PLATFORM.text(CREDENTIALS, "4242", "Hello from Bob")
    assert documented(said) == ("sendMessage", {"chat_id": 4242, "text": "Hello from Bob"})
    assert documented(set_webhook(CREDENTIALS, "https://i.test/v2/channels/1")) == (
        "setWebhook",
        {"url": "https://i.test/v2/channels/1", "secret_token": "s3cret_-",
         "allowed_updates": ["message", "callback_query"]},
    )  # fmt: skip


def test_a_webhook_s_quick_replies_with_buttons_are_an_inline_keyboard() -> None:
    item = {"type": "quickReply", "messages": [{"type": "quickReply", "title": "Next?",
            "replies": ["Menu", "Hours"]}], "buttons": [
            {"title": "Menu", "postback": "3f1c", "type": "goto"},
            {"title": "Hours", "postback": "Hours", "type": "postback"}]}  # fmt: skip
    (call,) = PLATFORM.render(CREDENTIALS, INCOMING, answer([item]))
    assert isinstance(call, Call)
    assert documented(call) == ("sendMessage", {"chat_id": 4242, "text": "Next?", "reply_markup": {
        "inline_keyboard": [[{"text": "Menu", "callback_data": "g:3f1c"}],
                            [{"text": "Hours", "callback_data": "q:Hours"}]]}})  # fmt: skip


@pytest.mark.parametrize(
    "fulfillment",
    [EVERY_KIND, AT_THE_LIMITS, UNSENDABLE_PARTS],
    ids=["every kind", "at the limits", "unsendable parts"],
)
def test_every_rendered_call_is_one_telegram_takes(fulfillment: tuple[Item, ...]) -> None:
    outgoing = PLATFORM.render(CREDENTIALS, INCOMING, fulfillment)
    said = [
        documented(c)
        for c in [*outgoing, *PLATFORM.text(CREDENTIALS, "1", " ")]
        if isinstance(c, Call)
    ]

    assert said


def test_what_telegram_would_refuse_is_left_out_and_the_rest_still_goes() -> None:
    outgoing = PLATFORM.render(CREDENTIALS, INCOMING, UNSENDABLE_PARTS)
    said = [documented(c)[1] for c in outgoing if isinstance(c, Call)]

    assert [one.get("text") or one.get("caption") or one["photo"] for one in said] == [
        "<!channel> & <@U2147483697>: free pizza",
        "https://img.example/" + "i" * 3000,
        "Only a title",
        "https://img.example/a.png",
        "A broken image\nand odd buttons",
        "…",
        "…",
        "The last one still goes",
    ]
    assert said[4]["reply_markup"] == {
        "inline_keyboard": [[{"text": "Order", "callback_data": "q:order"}]]
    }
    assert said[6]["reply_markup"]["keyboard"] == [[{"text": "Fine"}]]
    assert sorted(s.reason for s in outgoing if isinstance(s, Skipped)) == [
        "blank_label", "blank_label", "blank_label", "blank_label", "button_target_invalid",
        "image_url_invalid", "image_url_invalid", "image_url_invalid", "image_url_invalid",
        "nothing_to_show", "nothing_to_show",
    ]  # fmt: skip
