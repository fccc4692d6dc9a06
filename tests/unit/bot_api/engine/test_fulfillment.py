"""Response blocks become fulfillment items, with `{{name}}` filled in."""

import pytest

from bot_api.domain.responses import (
    Button,
    ButtonTemplate,
    Card,
    Image,
    QuickReplies,
    Text,
    TextChoice,
)
from bot_api.engine.fulfillment import fill, fulfillment


@pytest.mark.parametrize(
    ("template", "parameters", "filled"),
    [
        ("Hello {{default_name}}!", {"default_name": "Ada"}, "Hello Ada!"),
        ("Hello {{default_name}}!", {}, "Hello!"),
        ("Hello {{ default_name }} !", {}, "Hello!"),
        ("One {{size}} pizza, please.", {}, "One pizza, please."),
        ("{{greeting}} Ada", {}, "Ada"),
        ("See you, {{name}}", {}, "See you,"),
        ("Hi,{{name}} there", {}, "Hi, there"),
        ("Hello {{a}} {{b}}!", {}, "Hello!"),
        ("{{a}}{{b}}", {}, ""),
        ("a{{x}}b", {}, "ab"),
        (
            "Total: {{n}} items, paid: {{paid}}",
            {"n": 0, "paid": False},
            "Total: 0 items, paid: false",
        ),
    ],
)
def test_a_placeholder_is_replaced_and_an_empty_one_leaves_no_stray_space(
    template: str, parameters: dict[str, object], filled: str
) -> None:
    assert fill(template, parameters) == filled


def test_blocks_from_a_webhook_are_filled_like_stored_ones() -> None:
    blocks = [
        TextChoice(("Thanks {{name}}, your order {{order}} is on its way.",), delay=500),
        QuickReplies("Track {{order}}?", ("Yes",), (Button("Yes", "track {{order}}", "postback"),)),
        Card("{{order}}", "", "", (Button("Open", "https://x.io/{{order}}", "url"),)),
    ]
    items = fulfillment(blocks, {"name": "Ada", "order": "A-7"}, lambda options: options[0])
    assert items == [
        Text("Thanks Ada, your order A-7 is on its way.", delay=500),
        QuickReplies("Track A-7?", ("Yes",), (Button("Yes", "track A-7", "postback"),)),
        Card("A-7", "", "", (Button("Open", "https://x.io/A-7", "url"),)),
    ]


def test_every_text_field_is_filled_and_what_renders_blank_is_left_out() -> None:
    """Telegram refuses a blank text: a text, reply or button title that renders blank
    is not shown, nor a block left with nothing to show."""
    blocks = [
        TextChoice(("{{missing}}",)),
        TextChoice(("  ",)),
        QuickReplies("{{missing}}", ("{{missing}}", "Yes {{who}}")),
        QuickReplies("{{missing}}", ("{{missing}}",)),
        ButtonTemplate("Pick {{who}}", (Button("{{missing}}", "x"), Button("Me", "me {{who}}"))),
        ButtonTemplate("{{missing}}", (Button(" ", "x"),)),
        Card("{{missing}}", "{{missing}}", "{{missing}}", ()),
    ]
    items = fulfillment(blocks, {"who": "Ada"}, lambda options: options[0])
    assert items == [
        QuickReplies("", ("Yes Ada",)),
        ButtonTemplate("Pick Ada", (Button("Me", "me Ada"),)),
    ]


@pytest.mark.parametrize(
    "address",
    ["not a url at all", "https://", "https://a b.png", "ftp://x.io/a.png", "https://x.io:port/"],
)
def test_what_is_no_web_address_is_never_shown_as_an_image_or_a_link(address: str) -> None:
    blocks = [
        Image("{{picture}}"),
        Card(
            "Offer", "", "{{picture}}", (Button("Open", "{{picture}}", "webview"), Button("B", "b"))
        ),
        ButtonTemplate("Links", (Button("Web", "{{picture}}", "url"), Button("Hi", "hi", "goto"))),
        TextChoice(("after",)),
    ]
    items = fulfillment(blocks, {"picture": address}, lambda options: options[0])
    assert items == [
        Card("Offer", "", "", (Button("B", "b"),)),
        ButtonTemplate("Links", (Button("Hi", "hi", "goto"),)),
        Text("after"),
    ]


def test_a_stored_postback_meant_as_a_link_is_left_out_when_it_is_no_web_address() -> None:
    """A stored button opens its postback when it starts with http(s):// (as channels
    and the console read it): a broken one is left out, a text postback is said."""
    buttons = (Button("A", "https://"), Button("B", "https://{{page}}"), Button("C", "say c"))
    items = fulfillment([ButtonTemplate("Go", buttons)], {"page": "x y"}, lambda o: o[0])
    assert items == [ButtonTemplate("Go", (Button("C", "say c"),))]


def test_a_web_address_filled_in_is_shown() -> None:
    blocks = [Image("https://cdn.example/{{id}}.png"), Card("A", "", "{{picture}}", ())]
    parameters = {"id": "7", "picture": "http://x.io:8080/a.png?size=2"}
    assert fulfillment(blocks, parameters, lambda options: options[0]) == [
        Image("https://cdn.example/7.png"),
        Card("A", "", "http://x.io:8080/a.png?size=2", ()),
    ]
