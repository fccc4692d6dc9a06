"""The limits of an interaction's response blocks (text, quickReply, image, card,
buttonTemplate and their buttons), enforced at the HTTP boundary of bot-api: the maximum
is accepted and read back as sent; one more is refused with 400 `validation_error`
naming the field, and nothing is created or changed.

Where the concept rules and the field tables differ, the concept rules hold (at most 3
buttons, one quickReply block, 20-character quick replies, a 640-character button-template
text, an optional postback that defaults to the button title).
"""

from typing import Any

import pytest

from support.api import Api
from support.limits import (
    button,
    button_template,
    card,
    create_entities_for,
    interaction_accepts,
    interaction_create_refuses,
    interaction_update_refuses,
    quick_reply,
    refused_by_rule,
    text,
    url_of_length,
)

ALL_RESPONSE_TYPES = [
    text(),
    quick_reply(),
    {"type": "image", "imageUrl": "https://img.example.com/a.png"},
    card(),
    button_template(),
]

RESPONSE_LIMITS = [
    pytest.param(
        {"responses": [text(f"m{i}") for i in range(11)]},
        {"responses": [text(f"m{i}") for i in range(12)]},
        "responses",
        "11",
        id="11 responses",
    ),
    pytest.param(
        {"responses": [text(*(f"m{i}" for i in range(20)))]},
        {"responses": [text(*(f"m{i}" for i in range(21)))]},
        "responses[0].messages",
        "20",
        id="text: 20 messages",
    ),
    pytest.param(
        {"responses": [text("m" * 2048)]},
        {"responses": [text("m" * 2049)]},
        "responses[0].messages[0]",
        "2048",
        id="text: message length",
    ),
    pytest.param(
        {"responses": [quick_reply("q" * 80)]},
        {"responses": [quick_reply("q" * 81)]},
        "responses[0].title",
        "80",
        id="quickReply: title length",
    ),
    pytest.param(
        {"responses": [quick_reply(replies=[f"r{i}" for i in range(11)])]},
        {"responses": [quick_reply(replies=[f"r{i}" for i in range(12)])]},
        "responses[0].replies",
        "11",
        id="quickReply: 11 replies",
    ),
    pytest.param(
        {"responses": [quick_reply(replies=["r" * 20])]},
        {"responses": [quick_reply(replies=["r" * 21])]},
        "responses[0].replies[0]",
        "20",
        id="quickReply: reply length",
    ),
    pytest.param(
        {"responses": [{"type": "image", "imageUrl": url_of_length(2048)}]},
        {"responses": [{"type": "image", "imageUrl": url_of_length(2049)}]},
        "responses[0].imageUrl",
        "2048",
        id="image: url length",
    ),
    pytest.param(
        {"responses": [card(title="c" * 80)]},
        {"responses": [card(title="c" * 81)]},
        "responses[0].title",
        "80",
        id="card: title length",
    ),
    pytest.param(
        {"responses": [card(subtitle="s" * 80)]},
        {"responses": [card(subtitle="s" * 81)]},
        "responses[0].subtitle",
        "80",
        id="card: subtitle length",
    ),
    pytest.param(
        {"responses": [card(imageUrl=url_of_length(2048))]},
        {"responses": [card(imageUrl=url_of_length(2049))]},
        "responses[0].imageUrl",
        "2048",
        id="card: image url length",
    ),
    pytest.param(
        {"responses": [card(buttons=[button(f"b{i}") for i in range(3)])]},
        {"responses": [card(buttons=[button(f"b{i}") for i in range(4)])]},
        "responses[0].buttons",
        "3",
        id="card: 3 buttons",
    ),
    pytest.param(
        {"responses": [button_template(title="t" * 640)]},
        {"responses": [button_template(title="t" * 641)]},
        "responses[0].title",
        "640",
        id="buttonTemplate: text length",
    ),
    pytest.param(
        {"responses": [button_template(buttons=[button(f"b{i}") for i in range(3)])]},
        {"responses": [button_template(buttons=[button(f"b{i}") for i in range(4)])]},
        "responses[0].buttons",
        "3",
        id="buttonTemplate: 3 buttons",
    ),
    pytest.param(
        {"responses": [card(buttons=[button("b" * 20)])]},
        {"responses": [card(buttons=[button("b" * 21)])]},
        "responses[0].buttons[0].title",
        "20",
        id="button: title length",
    ),
    pytest.param(
        {"responses": [button_template(buttons=[button(postback="p" * 2048)])]},
        {"responses": [button_template(buttons=[button(postback="p" * 2049)])]},
        "responses[0].buttons[0].postback",
        "2048",
        id="button: postback length",
    ),
]


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), RESPONSE_LIMITS)
async def test_a_response_accepts_each_maximum(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await interaction_accepts(api, story_id, at_max)


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), RESPONSE_LIMITS)
async def test_a_response_refuses_one_more_and_the_interaction_is_not_created(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await create_entities_for(api, at_max)
    await interaction_create_refuses(api, story_id, over, path, limit)


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), RESPONSE_LIMITS)
async def test_a_response_update_refuses_one_more_and_changes_nothing(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await interaction_update_refuses(api, story_id, at_max, over, path, limit)


RESPONSE_REFUSED = [
    pytest.param(
        {"responses": [{"type": "text", "messages": []}]},
        "responses[0].messages",
        id="text: no messages",
    ),
    pytest.param({"responses": [text("")]}, "responses[0].messages[0]", id="text: empty message"),
    pytest.param(
        {"responses": [quick_reply("")]}, "responses[0].title", id="quickReply: empty title"
    ),
    pytest.param(
        {"responses": [{"type": "quickReply", "title": "Size?", "replies": []}]},
        "responses[0].replies",
        id="quickReply: no replies",
    ),
    pytest.param(
        {"responses": [quick_reply(replies=[""])]},
        "responses[0].replies[0]",
        id="quickReply: empty reply",
    ),
    pytest.param(
        {"responses": [{"type": "image", "imageUrl": ""}]},
        "responses[0].imageUrl",
        id="image: empty url",
    ),
    pytest.param({"responses": [card(title="")]}, "responses[0].title", id="card: empty title"),
    pytest.param(
        {"responses": [{"type": "card", "subtitle": "Tomato"}]},
        "responses[0].title",
        id="card: missing title",
    ),
    pytest.param(
        {"responses": [button_template(title="")]},
        "responses[0].title",
        id="buttonTemplate: empty text",
    ),
    pytest.param(
        {"responses": [{"type": "buttonTemplate", "title": "What next?"}]},
        "responses[0].buttons",
        id="buttonTemplate: missing buttons",
    ),
    pytest.param(
        {"responses": [card(buttons=[button("")])]},
        "responses[0].buttons[0].title",
        id="button: empty title",
    ),
    pytest.param(
        {"responses": [card(buttons=[{"postback": "ORDER"}])]},
        "responses[0].buttons[0].title",
        id="button: missing title",
    ),
    pytest.param(
        {"responses": [{"type": "video", "url": "v.mp4"}]},
        "responses[0].type",
        id="unknown response type",
    ),
]


@pytest.mark.parametrize(("fields", "path"), RESPONSE_REFUSED)
async def test_a_response_refuses_empty_missing_or_malformed_fields(
    api: Api, story_id: str, fields: dict[str, Any], path: str
) -> None:
    await interaction_create_refuses(api, story_id, fields, path)


RESPONSE_ACCEPTED = [
    pytest.param({"responses": [card(buttons=[])]}, id="card without buttons"),
    pytest.param(
        {"responses": [button_template(buttons=[])]}, id="buttonTemplate with empty buttons"
    ),
    pytest.param({"responses": ALL_RESPONSE_TYPES}, id="one block of each type"),
]


@pytest.mark.parametrize("fields", RESPONSE_ACCEPTED)
async def test_a_response_accepts_empty_optional_fields_and_well_formed_values(
    api: Api, story_id: str, fields: dict[str, Any]
) -> None:
    await interaction_accepts(api, story_id, fields)


async def test_a_card_needs_only_a_title(api: Api, story_id: str) -> None:
    """Subtitle, image and buttons of a card are optional and stored empty."""
    interaction_id = await api.create_interaction(
        story_id, "Menu", responses=[{"type": "card", "title": "Margherita"}]
    )
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert stored["responses"] == [
        {"type": "card", "title": "Margherita", "subtitle": "", "imageUrl": "", "buttons": []}
    ]


async def test_a_button_without_a_postback_posts_back_its_title(api: Api, story_id: str) -> None:
    """An empty or missing postback is stored as the button's title."""
    buttons = [{"title": "Order"}, {"title": "Menu", "postback": ""}, button("Call", "tel")]
    interaction_id = await api.create_interaction(
        story_id,
        "Menu",
        responses=[card(buttons=buttons), button_template(buttons=buttons)],
    )
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    expected = [button("Order", "Order"), button("Menu", "Menu"), button("Call", "tel")]
    assert [r["buttons"] for r in stored["responses"]] == [expected, expected]


async def test_an_interaction_holds_one_quick_reply_block_among_others(
    api: Api, story_id: str
) -> None:
    responses = [
        text(),
        quick_reply(),
        card(),
        {"type": "image", "imageUrl": "https://img.example.com/a.png"},
    ]
    interaction_id = await api.create_interaction(story_id, "Order pizza", responses=responses)
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert stored["responses"] == responses

    path = f"/stories/{story_id}/interactions/{interaction_id}"
    refused_by_rule(await api.put(path, {"responses": [*responses, quick_reply()]}), "responses[4]")
    assert (await api.ok("GET", path))["responses"] == responses
