"""Messenger's and WhatsApp's channel modules: Meta's signature and verification
request, what each reads, and that every call each renders is one Graph takes (the
stand-in's checks)."""

import json
from typing import Any

import pytest

from integrations_api.channels.messenger import PLATFORM as messenger
from integrations_api.channels.meta import GRAPH_VERSION
from integrations_api.channels.platform import Call, Incoming, Pause, Profile, Request, Skipped
from integrations_api.channels.whatsapp import PLATFORM as whatsapp
from shared.fulfillment import Card, Item
from support.platforms.answers import AT_THE_LIMITS, EVERY_KIND, GOTO, REPLIES, UNSENDABLE_PARTS
from support.platforms.meta import (
    PHONE_NUMBER_ID,
    PSID,
    WA_ID,
    messenger_call,
    send_api_problems,
    signed_headers,
    whatsapp_call,
    whatsapp_problems,
)

MESSENGER = {"pageAccessToken": "page-token", "appSecret": "app-secret", "verifyToken": "verify-me"}
WHATSAPP = {
    "accessToken": "wa-token",
    "phoneNumberId": PHONE_NUMBER_ID,
    "appSecret": "app-secret",
    "verifyToken": "verify-me",
}

# The same X-Hub-Signature-256 scheme, with GitHub's documented example (Meta publishes
# none): the body "Hello, World!" and the secret "It's a Secret to Everybody".
EXAMPLE_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


def post(body: bytes, headers: dict[str, str]) -> Request:
    return Request("POST", {k.lower(): v for k, v in headers.items()}, {}, body)


def get(**query: str) -> Request:
    return Request("GET", {}, {f"hub.{name}": value for name, value in query.items()}, b"")


@pytest.mark.parametrize("platform", [messenger, whatsapp], ids=["messenger", "whatsapp"])
def test_the_documented_signature_of_the_raw_body_is_authentic_and_any_change_is_not(
    platform: Any,
) -> None:
    credentials = {"appSecret": "It's a Secret to Everybody", "verifyToken": "v"}
    signed = {"X-Hub-Signature-256": EXAMPLE_SIGNATURE}

    assert platform.authenticate(credentials, post(b"Hello, World!", signed), now=0)
    assert not platform.authenticate(credentials, post(b"Hello, World?", signed), now=0)
    assert not platform.authenticate(credentials, post(b"Hello, World!", {}), now=0)
    unprefixed = {"X-Hub-Signature-256": EXAMPLE_SIGNATURE.removeprefix("sha256=")}
    assert not platform.authenticate(credentials, post(b"Hello, World!", unprefixed), now=0)


def test_the_stand_ins_signing_gives_the_documented_signature() -> None:
    headers = signed_headers("It's a Secret to Everybody", b"Hello, World!")

    assert headers == {"X-Hub-Signature-256": EXAMPLE_SIGNATURE}


@pytest.mark.parametrize(
    ("platform", "credentials"),
    [(messenger, MESSENGER), (whatsapp, WHATSAPP)],
    ids=["messenger", "whatsapp"],
)
def test_the_verification_request_is_answered_with_its_challenge_only_with_the_verify_token(
    platform: Any, credentials: dict[str, str]
) -> None:
    right = get(mode="subscribe", verify_token="verify-me", challenge="1158201444")
    wrong = get(mode="subscribe", verify_token="guess", challenge="1158201444")
    no_mode = get(verify_token="verify-me", challenge="1158201444")

    reply = platform.challenge(credentials, right)
    assert reply is not None and (reply.status, reply.text) == (200, "1158201444")
    assert platform.authenticate(credentials, right, now=0)
    for refused in (wrong, no_mode):
        assert platform.challenge(credentials, refused) is None
        assert not platform.authenticate(credentials, refused, now=0)
    assert platform.challenge(credentials, post(b"{}", {})) is None


def encoded(call: dict[str, Any]) -> bytes:
    return json.dumps(call).encode()


def test_messenger_reads_messages_quick_replies_and_postbacks() -> None:
    body = encoded(
        messenger_call(
            {"message": {"mid": "m_1", "text": "hello"}},
            {"message": {"mid": "m_2", "text": "Large", "quick_reply": {"payload": "q:Large"}}},
            {"postback": {"mid": "m_3", "title": "Menu", "payload": "g:" + GOTO}},
            {"message": {"mid": "m_4", "text": "echo", "is_echo": True}},
            {"message": {"mid": "m_5", "attachments": [{"type": "image"}]}},
            {"read": {"watermark": 1}},
        )
    )

    assert messenger.read(MESSENGER, body) == [
        Incoming("m_1", PSID, PSID, query="hello"),
        Incoming("m_2", PSID, PSID, query="Large"),
        Incoming("m_3", PSID, PSID, goto=GOTO),
    ]
    assert (
        messenger.read(MESSENGER, json.dumps({"object": "instagram", "entry": []}).encode()) == []
    )
    with pytest.raises(ValueError):
        messenger.read(MESSENGER, b'"page"')
    no_sender = b'{"object": "page", "entry": [{"messaging": [{"message": {}}]}]}'
    assert messenger.read(MESSENGER, no_sender) == [Skipped("unreadable")]


def test_whatsapp_reads_texts_and_choices_with_the_senders_profile_name() -> None:
    body = encoded(
        whatsapp_call(
            {"id": "wamid.1", "type": "text", "text": {"body": "hello"}},
            {
                "id": "wamid.2",
                "type": "interactive",
                "interactive": {
                    "type": "button_reply",
                    "button_reply": {"id": "q:Large", "title": "Large"},
                },
            },
            {
                "id": "wamid.3",
                "type": "interactive",
                "interactive": {
                    "type": "list_reply",
                    "list_reply": {"id": "g:" + GOTO, "title": "Menu"},
                },
            },
            {"id": "wamid.4", "type": "image", "image": {"id": "1"}},
        )
    )
    profile = Profile(name="Sheena Nelson")

    assert whatsapp.read(WHATSAPP, body) == [
        Incoming("wamid.1", WA_ID, WA_ID, query="hello", profile=profile),
        Incoming("wamid.2", WA_ID, WA_ID, query="Large", profile=profile),
        Incoming("wamid.3", WA_ID, WA_ID, goto=GOTO, profile=profile),
    ]
    metadata = {"display_phone_number": "15550783881", "phone_number_id": PHONE_NUMBER_ID}
    read_status = {"id": "wamid.1", "status": "read"}
    statuses = {"field": "messages", "value": {"metadata": metadata, "statuses": [read_status]}}
    only_statuses = {
        "object": "whatsapp_business_account",
        "entry": [{"id": "1", "changes": [statuses]}],
    }
    assert whatsapp.read(WHATSAPP, json.dumps(only_statuses).encode()) == []
    with pytest.raises(ValueError):
        whatsapp.read(WHATSAPP, b"{}")
    no_id = encoded(whatsapp_call({"type": "text", "text": {"body": "no id"}}))
    assert whatsapp.read(WHATSAPP, no_id) == [Skipped("unreadable")]


def test_messenger_reads_what_it_can_of_a_call_and_skips_each_event_it_cannot() -> None:
    guest = {"sender": {"user_ref": "USER-REF-ID"}, "recipient": {"id": "1143"},
             "timestamp": 1527459824, "postback": {"mid": "m_g", "title": "Start",
                                                   "payload": "q:start"}}  # fmt: skip
    blocked = {"recipient": {"id": "1143"}, "timestamp": 1458692752478,
               "policy-enforcement": {"action": "block", "reason": "spam"}}  # fmt: skip
    call = messenger_call(
        {"message": {"mid": "m_1", "text": "hello"}},
        {"postback": {"title": "Menu", "payload": "g:" + GOTO}},
        {"postback": {"mid": "m_3"}},
    )
    call["entry"][0]["messaging"] += [guest, blocked, "not an event"]
    call["entry"].append({"id": "1143", "messaging": "not a list"})

    assert messenger.read(MESSENGER, encoded(call)) == [
        Incoming("m_1", PSID, PSID, query="hello"),
        Incoming(f"postback:{PSID}:1458692752478", PSID, PSID, goto=GOTO),
        Skipped("unreadable"),
        Skipped("no_psid"),
        Skipped("policy_enforcement"),
        Skipped("unreadable"),
        Skipped("unreadable"),
    ]


def test_whatsapp_reads_what_it_can_of_a_call_and_skips_each_message_it_cannot() -> None:
    call = whatsapp_call(
        {"id": "wamid.1", "type": "text", "text": {"body": "hello"}},
        {"id": "wamid.2", "type": "interactive", "interactive": {"type": "button_reply"}},
        {"id": "wamid.3", "type": "interactive"},
        {"id": "wamid.4", "type": "text", "text": {"body": "hi"}, "from": None},
        {"id": "wamid.5", "type": "text", "text": "not an object"},
    )
    value = call["entry"][0]["changes"][0]["value"]
    value["contacts"] = [{"profile": {"name": "No number"}}, *value["contacts"], "odd"]
    call["entry"].append({"id": "2", "changes": [{"field": "messages", "value": {}}]})

    assert whatsapp.read(WHATSAPP, encoded(call)) == [
        Incoming("wamid.1", WA_ID, WA_ID, query="hello", profile=Profile(name="Sheena Nelson")),
        Skipped("unreadable"),
        Skipped("unreadable"),
        Skipped("no_wa_id"),
        Skipped("unreadable"),
        Skipped("unreadable"),
    ]


def test_whatsapp_leaves_messages_to_another_number_of_the_same_app() -> None:
    call = whatsapp_call({"id": "wamid.9", "type": "text", "text": {"body": "hello"}})
    [read] = whatsapp.read(WHATSAPP, encoded(call))
    other_number = {**WHATSAPP, "phoneNumberId": "109999999999999"}

    assert read.query == "hello"
    assert whatsapp.read(other_number, encoded(call)) == []


def calls(outgoing: list[Any]) -> list[Call]:
    return [one for one in outgoing if isinstance(one, Call)]


def test_messenger_renders_every_kind_as_the_send_api_messages() -> None:
    outgoing = messenger.render(MESSENGER, Incoming("m_1", PSID, PSID, query="hi"), EVERY_KIND)

    assert [type(one) for one in outgoing] == [Call, Call, Call, Pause, Call, Call]
    sent = calls(outgoing)
    assert {call.path for call in sent} == {f"/{GRAPH_VERSION}/me/messages"}
    assert {call.headers["Authorization"] for call in sent} == {"Bearer page-token"}
    assert {(call.json["recipient"]["id"], call.json["messaging_type"]) for call in sent} == {
        (PSID, "RESPONSE")
    }
    text, quick, card, template, image = (call.json["message"] for call in sent)
    assert text == {"text": "Hello & welcome <friend>"}
    assert [(r["title"], r["payload"]) for r in quick["quick_replies"]] == [
        ("Small", "q:Small"),
        ("Large", "q:Large"),
    ]
    [element] = card["attachment"]["payload"]["elements"]
    assert (element["title"], element["subtitle"], element["image_url"]) == (
        "Margherita", "Tomato, mozzarella", "https://img.example/margherita.png",
    )  # fmt: skip
    assert [(b["type"], b.get("payload") or b.get("url")) for b in element["buttons"]] == [
        ("postback", "q:order a margherita"),
        ("postback", "g:" + GOTO),
        ("web_url", "https://pizza.example/margherita"),
    ]
    assert [(b["type"], b["payload"]) for b in template["attachment"]["payload"]["buttons"]] == [
        ("phone_number", "+33123456789"),
        ("postback", "q:No"),
    ]
    assert image == {
        "attachment": {
            "type": "image",
            "payload": {"url": "https://img.example/oven.jpg", "is_reusable": True},
        }
    }


def test_whatsapp_renders_every_kind_as_cloud_api_messages() -> None:
    outgoing = whatsapp.render(WHATSAPP, Incoming("wamid.1", WA_ID, WA_ID, query="hi"), EVERY_KIND)

    assert [type(one) for one in outgoing] == [Call, Call, Call, Pause, Call, Call]
    sent = calls(outgoing)
    assert {call.path for call in sent} == {f"/{GRAPH_VERSION}/106540352242922/messages"}
    assert {call.headers["Authorization"] for call in sent} == {"Bearer wa-token"}
    assert {call.json["to"] for call in sent} == {WA_ID}
    text, quick, card, template, image = (call.json for call in sent)
    assert text["text"]["body"] == "Hello & welcome <friend>"
    assert [b["reply"] for b in quick["interactive"]["action"]["buttons"]] == [
        {"id": "q:Small", "title": "Small"},
        {"id": "q:Large", "title": "Large"},
    ]
    assert card["interactive"]["header"] == {
        "type": "image",
        "image": {"link": "https://img.example/margherita.png"},
    }
    assert card["interactive"]["body"]["text"] == (
        "*Margherita*\nTomato, mozzarella\nWebsite: https://pizza.example/margherita"
    )
    assert [b["reply"]["id"] for b in card["interactive"]["action"]["buttons"]] == [
        "q:order a margherita",
        "g:" + GOTO,
    ]
    assert template["interactive"]["body"]["text"] == "Anything else?\nCall us: +33123456789"
    assert image["image"] == {"link": "https://img.example/oven.jpg"}


def test_whatsapp_puts_more_than_three_replies_in_a_list_of_at_most_ten_and_each_once() -> None:
    many, twice = calls(whatsapp.render(WHATSAPP, Incoming("w", WA_ID, WA_ID), AT_THE_LIMITS))[2:4]

    [section] = many.json["interactive"]["action"]["sections"]
    assert [row["title"] for row in section["rows"]] == [reply[:24] for reply in REPLIES[:10]]
    assert [b["reply"]["title"] for b in twice.json["interactive"]["action"]["buttons"]] == ["Yes"]


@pytest.mark.parametrize(
    "fulfillment",
    [EVERY_KIND, AT_THE_LIMITS, UNSENDABLE_PARTS],
    ids=["every kind", "at the limits", "unsendable parts"],
)
def test_every_rendered_call_is_one_graph_takes(fulfillment: tuple[Item, ...]) -> None:
    to_messenger = calls(messenger.render(MESSENGER, Incoming("m", PSID, PSID), fulfillment))
    to_whatsapp = calls(whatsapp.render(WHATSAPP, Incoming("w", WA_ID, WA_ID), fulfillment))
    to_messenger += messenger.text(MESSENGER, PSID, "z" * 3000)
    to_whatsapp += whatsapp.text(WHATSAPP, WA_ID, "z" * 5000)

    assert to_messenger and to_whatsapp
    assert [send_api_problems(dict(call.json)) for call in to_messenger] == [[]] * len(to_messenger)
    assert [whatsapp_problems(dict(call.json)) for call in to_whatsapp] == [[]] * len(to_whatsapp)


def test_the_stand_in_refuses_what_graph_refuses() -> None:
    thirteen_plus = [{"content_type": "text", "title": "t", "payload": "p"}] * 14
    too_many = {
        "recipient": {"id": PSID},
        "messaging_type": "RESPONSE",
        "message": {"text": "hi", "quick_replies": thirteen_plus},
    }
    four_buttons = {
        "messaging_product": "whatsapp",
        "to": WA_ID,
        "type": "interactive",
        "interactive": {
            "type": "button",
            "body": {"text": "Pick"},
            "action": {
                "buttons": [
                    {"type": "reply", "reply": {"id": str(n), "title": str(n)}} for n in range(4)
                ]
            },
        },
    }

    assert send_api_problems(too_many) == ["message.quick_replies: 14 items, 1 to 13 allowed"]
    assert whatsapp_problems(four_buttons) == [
        "interactive.action.buttons: 4 items, 1 to 3 allowed"
    ]
    assert whatsapp_problems(
        {"messaging_product": "whatsapp", "to": WA_ID, "type": "text", "text": {"body": ""}}
    ) == ["text.body: empty"]


def test_a_card_of_only_a_title_is_a_messenger_text_not_a_generic_template() -> None:
    bare = Card("Bare card", "", "", ())
    (call,) = calls(messenger.render(MESSENGER, Incoming("m", PSID, PSID), [bare]))

    assert call.json["message"] == {"text": "Bare card"}
    element = {"title": "Bare card"}
    template = {"template_type": "generic", "elements": [element]}
    refused = {**call.json, "message": {"attachment": {"type": "template", "payload": template}}}
    assert send_api_problems(refused) == [
        "message.attachment.payload.elements[0]: a title and nothing else is no element"
    ]


def test_a_persons_long_message_goes_in_pieces_cut_between_words() -> None:
    said = " ".join(f"word{n}" for n in range(1000))

    to_messenger = [call.json["message"]["text"] for call in messenger.text(MESSENGER, PSID, said)]
    to_whatsapp = [call.json["text"]["body"] for call in whatsapp.text(WHATSAPP, WA_ID, said)]

    assert [len(to_messenger), len(to_whatsapp)] == [4, 2]
    assert " ".join(to_messenger) == said and " ".join(to_whatsapp) == said
