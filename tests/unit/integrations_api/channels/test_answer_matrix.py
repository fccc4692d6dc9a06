"""Every platform x every kind of answer item (shared/fulfillment.py): each item is shown
in calls the platform's stand-in takes, or the platform declares it not shown (its
explicit replacement); and every click value a platform writes on a button comes back,
through the platform's own reading of a click, as the query or the jump it was written
for."""

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import get_args

import pytest

from integrations_api.channels.answers import not_shown
from integrations_api.channels.platform import Call, Credentials, Incoming, Platform
from integrations_api.channels.platforms import PLATFORMS
from shared.fulfillment import ButtonTemplate, Card, Handoff, Image, Item, QuickReplies, Text
from support.platforms import meta, slack, telegram
from support.platforms.answers import GOTO, answer

ORDER = {"title": "Order", "postback": "order a margherita"}
MENU = {"title": "Menu", "postback": GOTO, "type": "goto"}
SITE = {"title": "Website", "postback": "https://pizza.example/margherita", "type": "url"}
CALL = {"title": "Call us", "postback": "+33 1 23 45 67 89", "type": "phone"}
BUTTONS = [ORDER, MENU, SITE, CALL]
CLICKED = {("order a margherita", None), (None, GOTO)}
"""What the reply buttons of BUTTONS say or jump to when clicked (a link opens, a phone
button calls: neither comes back)."""

ONE_OF_EACH = answer(
    [
        {"type": "text", "message": "Hello"},
        {
            "type": "quickReply",
            "messages": [{"type": "quickReply", "title": "Size?", "replies": ["Small", "Large"]}],
        },
        {
            "type": "quickReply",
            "messages": [{"type": "quickReply", "title": "Next?", "replies": ["Order", "Menu"]}],
            "buttons": [{**ORDER, "type": "postback"}, MENU],
        },
        {"type": "image", "imageUrl": "https://img.example/oven.jpg"},
        {
            "type": "card",
            "title": "Margherita",
            "subtitle": "Tomato",
            "imageUrl": "https://img.example/m.png",
            "buttons": BUTTONS,
        },
        {"type": "buttonTemplate", "title": "Anything else?", "buttons": BUTTONS},
        {"type": "handoff", "connection": "65f0c0ffee65f0c0ffee0042"},
    ]
)
EXPECTED_CLICKS: dict[Item, set[tuple[str | None, str | None]]] = {
    ONE_OF_EACH[1]: {("Small", None), ("Large", None)},
    ONE_OF_EACH[2]: CLICKED,
    ONE_OF_EACH[4]: CLICKED,
    ONE_OF_EACH[5]: CLICKED,
}


@dataclass(frozen=True)
class Harness:
    """A platform's channel as the tests know it: its credentials and a user's message,
    the stand-in's check of a call, the click values a call writes and the body the
    platform sends when one is clicked."""

    credentials: Credentials
    incoming: Incoming
    problems: Callable[[Call], list[str]]
    written: Callable[[Call], Iterator[str]]
    click: Callable[[str], bytes]


def _telegram_problems(call: Call) -> list[str]:
    problem = telegram.CHECKS[call.path.rsplit("/", 1)[1]](dict(call.json))
    return [problem] if problem else []


def _telegram_written(call: Call) -> Iterator[str]:
    markup = call.json.get("reply_markup", {})
    for (button,) in markup.get("inline_keyboard", []):
        if "callback_data" in button:
            yield button["callback_data"]
    for (key,) in markup.get("keyboard", []):
        yield key["text"]  # a reply keyboard's key comes back as a message of its text


def _telegram_click(value: str) -> bytes:
    """A click on an inline keyboard's button; a reply keyboard's key is its text said."""
    if value[:2] in ("q:", "g:"):
        return json.dumps(telegram.click_update(1, value)).encode()
    return json.dumps(telegram.message_update(1, value)).encode()


def _slack_problems(call: Call) -> list[str]:
    return slack.message_problems(dict(call.json))[1]


def _slack_written(call: Call) -> Iterator[str]:
    for block in call.json.get("blocks", []):
        yield from (e["value"] for e in block.get("elements", []) if "value" in e)


def _messenger_written(call: Call) -> Iterator[str]:
    message = call.json["message"]
    yield from (reply["payload"] for reply in message.get("quick_replies", []))
    payload = message.get("attachment", {}).get("payload", {})
    buttons = [*payload.get("buttons", [])]
    buttons += [b for element in payload.get("elements", []) for b in element.get("buttons", [])]
    yield from (b["payload"] for b in buttons if b["type"] == "postback")


def _messenger_click(value: str) -> bytes:
    """A postback for a template's button, a quick reply's tap otherwise: both carry the
    payload the same way back (`read_click`)."""
    event = {"postback": {"mid": "m1", "title": "x", "payload": value}}
    return json.dumps(meta.messenger_call(event)).encode()


def _whatsapp_written(call: Call) -> Iterator[str]:
    action = call.json.get("interactive", {}).get("action", {})
    yield from (button["reply"]["id"] for button in action.get("buttons", []))
    yield from (row["id"] for section in action.get("sections", []) for row in section["rows"])


def _whatsapp_click(value: str) -> bytes:
    choice = {"type": "button_reply", "button_reply": {"id": value, "title": "x"}}
    message = {"id": "wamid.1", "type": "interactive", "interactive": choice}
    return json.dumps(meta.whatsapp_call(message)).encode()


HARNESSES = {
    "telegram": Harness(
        {"botToken": "123:abc", "webhookSecret": "s"},
        Incoming("1", "4242", "77"),
        _telegram_problems,
        _telegram_written,
        _telegram_click,
    ),
    "slack": Harness(
        {"botToken": "xoxb-test", "signingSecret": "secret"},
        Incoming("Ev1", slack.CHANNEL, slack.USER, query="hi"),
        _slack_problems,
        _slack_written,
        lambda value: slack.click("t1", value=value),
    ),
    "messenger": Harness(
        meta.MESSENGER,
        Incoming("m1", meta.PSID, meta.PSID, query="hi"),
        lambda call: meta.send_api_problems(dict(call.json)),
        _messenger_written,
        _messenger_click,
    ),
    "whatsapp": Harness(
        meta.WHATSAPP,
        Incoming("w1", meta.WA_ID, meta.WA_ID, query="hi"),
        lambda call: meta.whatsapp_problems(dict(call.json)),
        _whatsapp_written,
        _whatsapp_click,
    ),
}


def test_the_items_cover_every_kind_and_every_platform_declares_each() -> None:
    kinds = set(get_args(Item))
    assert {type(item) for item in ONE_OF_EACH} == kinds
    assert set(HARNESSES) == set(PLATFORMS)
    for platform in PLATFORMS.values():
        assert len(fields(platform.shows)) == len(kinds)


def _calls(platform: Platform, item: Item) -> list[Call]:
    harness = HARNESSES[platform.type]
    outgoing = platform.render(harness.credentials, harness.incoming, [item])
    return [one for one in outgoing if isinstance(one, Call)]


SHOWN_BY = {
    Text: "text",
    QuickReplies: "quick_replies",
    Image: "image",
    Card: "card",
    ButtonTemplate: "button_template",
    Handoff: "handoff",
}


@pytest.mark.parametrize("item", ONE_OF_EACH, ids=lambda item: type(item).__name__)
@pytest.mark.parametrize("platform", PLATFORMS.values(), ids=lambda platform: platform.type)
def test_each_item_is_shown_in_calls_the_platform_takes_or_declared_not_shown(
    platform: Platform, item: Item
) -> None:
    sent = _calls(platform, item)
    declared = getattr(platform.shows, SHOWN_BY[type(item)])

    if declared is not_shown:
        assert sent == []
    else:
        assert sent, "shown in no call"
        assert [HARNESSES[platform.type].problems(call) for call in sent] == [[]] * len(sent)
    assert (declared is not_shown) == isinstance(item, Handoff)


@pytest.mark.parametrize("item", list(EXPECTED_CLICKS), ids=lambda item: type(item).__name__)
@pytest.mark.parametrize("platform", PLATFORMS.values(), ids=lambda platform: platform.type)
def test_every_click_value_written_reads_back_as_what_its_button_says(
    platform: Platform, item: Item
) -> None:
    harness = HARNESSES[platform.type]
    written = [value for call in _calls(platform, item) for value in harness.written(call)]
    read_back = set()
    for value in written:
        (clicked,) = platform.read(harness.credentials, harness.click(value))
        assert isinstance(clicked, Incoming)
        read_back.add((clicked.query, clicked.goto))

    assert len(written) == len(EXPECTED_CLICKS[item])
    assert read_back == EXPECTED_CLICKS[item]


def test_a_query_too_long_for_a_click_value_reads_back_as_its_title() -> None:
    long_query = {"title": "Order", "postback": "p" * 2100}
    item = answer([{"type": "buttonTemplate", "title": "Pick", "buttons": [long_query]}])[0]
    for platform in PLATFORMS.values():
        harness = HARNESSES[platform.type]
        (value,) = [v for call in _calls(platform, item) for v in harness.written(call)]
        (clicked,) = platform.read(harness.credentials, harness.click(value))
        assert isinstance(clicked, Incoming)
        assert (clicked.query, clicked.goto) == ("Order", None), platform.type


def test_every_kind_is_named_once_in_the_dispatch() -> None:
    assert set(SHOWN_BY) == set(get_args(Item))
    assert set(SHOWN_BY.values()) == {field.name for field in fields(PLATFORMS["slack"].shows)}
