"""Response blocks become fulfillment items, with `{{name}}` filled in."""

import pytest

from bot_api.domain.responses import Button, Card, QuickReplies, Text, TextChoice
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
