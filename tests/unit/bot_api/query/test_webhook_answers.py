"""A webhook's answer read: an address that is no web address leaves out its image or
button, counted, and never the items after it."""

import json
from typing import Any

import pytest
from prometheus_client import REGISTRY

from bot_api.domain.responses import Button, ButtonTemplate, Card, Image, TextChoice
from bot_api.query.webhooks.answers import read_answer
from bot_api.query.webhooks.failures import DeliveryFailed
from shared.json_body import MAX_MEMBERS


def dropped(what: str) -> float:
    value = REGISTRY.get_sample_value("parley_webhook_addresses_dropped_total", {"what": what})
    return value or 0.0


def answer(*responses: dict[str, Any]) -> bytes:
    return json.dumps({"responses": list(responses)}).encode()


def card(image_url: str, *buttons: dict[str, str]) -> dict[str, Any]:
    element = {"title": "Bike", "subtitle": "Red", "imageUrl": image_url, "buttons": buttons}
    return {"type": "cards", "elements": [element]}


@pytest.mark.parametrize("address", ["not a url at all", "https://", "https://a b/c.png"])
def test_an_address_that_is_no_web_address_is_left_out_and_counted(address: str) -> None:
    before = {what: dropped(what) for what in ("image", "card image", "button")}
    buy = {"type": "postback", "title": "Buy", "value": "buy"}
    link = {"type": "url", "title": "Open", "value": address}

    read = read_answer(
        answer(
            {"type": "image", "imageUrl": address},
            card(address, link, buy),
            {"type": "buttons", "title": "More", "buttons": [link, {**link, "type": "webview"}]},
            {"type": "text", "message": "still here"},
        )
    )

    assert read.responses == (
        Card("Bike", "Red", "", (Button("Buy", "buy", "postback"),), 1000),
        ButtonTemplate("More", (), 1000),
        TextChoice(("still here",), 1000),
    )
    assert {what: dropped(what) - before[what] for what in before} == {
        "image": 1,
        "card image": 1,
        "button": 3,
    }


def test_web_addresses_and_those_a_parameter_fills_are_kept() -> None:
    read = read_answer(
        answer(
            {"type": "image", "imageUrl": "https://cdn.example/a.png"},
            {"type": "image", "imageUrl": "{{picture}}"},
            {"type": "image", "imageUrl": "https://cdn.example/{{id}}.png"},
        )
    )
    assert [item.image_url for item in read.responses if isinstance(item, Image)] == [
        "https://cdn.example/a.png",
        "{{picture}}",
        "https://cdn.example/{{id}}.png",
    ]


def test_what_breaks_spec_tables_still_fails_the_delivery() -> None:
    with pytest.raises(DeliveryFailed, match="imageUrl"):
        read_answer(answer({"type": "image", "imageUrl": ""}))


def test_a_link_button_opens_a_web_address_or_a_mail_link_and_nothing_else() -> None:
    """The widget opens `mailto:` (channels leave it out where their platform cannot);
    `javascript:` and `data:` are never sent as links."""
    buttons = [
        {"type": "url", "title": "Mail", "value": "mailto:shop@example.com"},
        {"type": "url", "title": "Evil", "value": "javascript:alert(document.cookie)"},
        {"type": "webview", "title": "Data", "value": "data:text/html,<script>1</script>"},
        {"type": "url", "title": "Docs", "value": "https://example.com/docs"},
    ]
    read = read_answer(answer({"type": "buttons", "title": "Where to?", "buttons": buttons}))
    assert read.responses == (
        ButtonTemplate(
            "Where to?",
            (
                Button("Mail", "mailto:shop@example.com", "url"),
                Button("Docs", "https://example.com/docs", "url"),
            ),
            1000,
        ),
    )


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "answer refused: the body is nested deeper than 32"),
        (
            b'{"responses": [' + b",".join([b"{}"] * (MAX_MEMBERS + 1)) + b"]}",
            f"more than {MAX_MEMBERS} members",
        ),
    ],
)
def test_an_answer_beyond_the_json_bounds_is_a_failed_delivery_not_a_crash(
    raw: bytes, said: str
) -> None:
    with pytest.raises(DeliveryFailed, match=said):
        read_answer(raw)
