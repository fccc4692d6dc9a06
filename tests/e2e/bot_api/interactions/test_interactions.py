"""Interactions: create at root or under a parent, read, update, bulk delete."""

import asyncio
import re
from typing import Any

import pytest

from support.api import Api

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


@pytest.fixture
async def story_id(api: Api) -> str:
    await api.create_entity("size", "small", "large")
    return await api.create_story("Pizza")


async def interactions_of(api: Api, story_id: str) -> list[dict[str, Any]]:
    return list(await api.ok("GET", f"/stories/{story_id}/interactions"))


async def test_a_root_interaction_gets_a_uuid_and_joins_the_end_of_the_order(
    api: Api, story_id: str
) -> None:
    interaction_id = await api.create_interaction(story_id, "Order", userSays=["a pizza"])
    assert UUID4.match(interaction_id)
    story = await api.story(story_id)
    assert story["order"][-1] == interaction_id
    assert story["interactions"][interaction_id]["root"] is True


async def test_omitted_fields_are_created_empty(api: Api, story_id: str) -> None:
    interaction_id = await api.create_interaction(story_id, "Bare")
    assert await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}") == {
        "id": interaction_id,
        "type": "standard",
        "name": "Bare",
        "action": "",
        "triggers": [],
        "userSays": [],
        "parameters": [],
        "responses": [],
        "webhook": "",
    }


async def test_a_child_is_owned_by_its_parent_and_shows_under_it(api: Api, story_id: str) -> None:
    order = await api.create_interaction(story_id, "Order")
    size = await api.create_interaction(story_id, "Size", parent=order)
    crust = await api.create_interaction(story_id, "Crust", parent=size)
    story = await api.story(story_id)
    assert story["interactions"][order]["contextOut"] == [size]
    assert story["interactions"][size]["root"] is False
    assert size not in story["order"]
    assert story["story"][-1] == {
        "id": order,
        "childrens": [
            {"id": size, "ref": False, "childrens": [{"id": crust, "ref": False, "childrens": []}]}
        ],
    }
    names = [i["name"] for i in await interactions_of(api, story_id)]
    assert names == ["Welcome", "Fallback", "Order", "Size", "Crust"]


async def test_a_child_of_an_unknown_parent_is_not_found_and_nothing_is_created(
    api: Api, story_id: str
) -> None:
    reply = await api.post(f"/stories/{story_id}/interactions/nobody", {"name": "Orphan"})
    assert reply.error == (404, "not_found")
    assert len(await interactions_of(api, story_id)) == 2


async def test_every_stored_response_type_reads_back_with_button_postbacks_defaulted(
    api: Api, story_id: str
) -> None:
    responses = [
        {"type": "text", "messages": ["Hi {{default_name}}", "Hello"]},
        {"type": "quickReply", "title": "Size?", "replies": ["Small", "Large"]},
        {"type": "image", "imageUrl": "https://example.com/pizza.png"},
        {
            "type": "card",
            "title": "Margherita",
            "buttons": [{"title": "Order"}, {"title": "Menu", "postback": "https://x.io/menu"}],
        },
        {
            "type": "buttonTemplate",
            "title": "Pick one",
            "buttons": [{"title": "A", "postback": ""}],
        },
    ]
    interaction_id = await api.create_interaction(story_id, "Menu", responses=responses)
    stored = (await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}"))[
        "responses"
    ]
    assert stored[:3] == responses[:3]
    assert stored[3] == {
        "type": "card",
        "title": "Margherita",
        "subtitle": "",
        "imageUrl": "",
        "buttons": [
            {"title": "Order", "postback": "Order"},
            {"title": "Menu", "postback": "https://x.io/menu"},
        ],
    }
    assert stored[4]["buttons"] == [{"title": "A", "postback": "A"}]


async def test_an_unknown_response_type_is_refused(api: Api, story_id: str) -> None:
    reply = await api.post(
        f"/stories/{story_id}/interactions", {"name": "x", "responses": [{"type": "video"}]}
    )
    assert reply.error == (400, "validation_error")
    assert "responses" in reply.body["status"]["errors"]


async def test_a_slot_in_user_says_adds_the_parameter_automatically(
    api: Api, story_id: str
) -> None:
    interaction_id = await api.create_interaction(
        story_id, "Order", userSays=["a {{size:size}} pizza"]
    )
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert stored["parameters"] == [
        {"alias": "size", "entity": "size", "prompts": [], "required": False}
    ]


async def test_an_unknown_entity_is_named_and_nothing_is_stored(api: Api, story_id: str) -> None:
    for body in (
        {"name": "x", "userSays": ["to {{city:town}}"]},
        {"name": "x", "parameters": [{"alias": "town", "entity": "city"}]},
    ):
        reply = await api.post(f"/stories/{story_id}/interactions", body)
        assert reply.error == (400, "validation_error")
        assert "'city'" in reply.details
    assert len(await interactions_of(api, story_id)) == 2


async def test_a_parameter_is_required_exactly_when_it_has_prompts(api: Api, story_id: str) -> None:
    interaction_id = await api.create_interaction(
        story_id,
        "Order",
        userSays=["a {{size:size}} pizza"],
        parameters=[
            {"alias": "size", "entity": "size", "prompts": ["Which size?"]},
            {"alias": "extra", "entity": "size"},
        ],
    )
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert [(p["alias"], p["required"]) for p in stored["parameters"]] == [
        ("size", True),
        ("extra", False),
    ]


async def test_what_was_read_can_be_sent_back_as_an_update(api: Api, story_id: str) -> None:
    interaction_id = await api.create_interaction(
        story_id, "Order", userSays=["a {{size:size}} pizza"]
    )
    path = f"/stories/{story_id}/interactions/{interaction_id}"
    read = await api.ok("GET", path)
    await api.ok("PUT", path, {**read, "name": "Order pizza"})
    assert await api.ok("GET", path) == {**read, "name": "Order pizza"}
    reply = await api.put(path, {**read, "colour": "red"})
    assert reply.body["status"]["errors"] == {"colour": ["Unknown field."]}


async def test_update_changes_only_the_fields_it_sends(api: Api, story_id: str) -> None:
    interaction_id = await api.create_interaction(
        story_id, "Order", action="order", userSays=["a pizza"], webhook="https://hooks.test/a"
    )
    path = f"/stories/{story_id}/interactions/{interaction_id}"
    await api.ok("PUT", path, {"name": "Order pizza", "userSays": ["one pizza", "a pizza"]})
    stored = await api.ok("GET", path)
    assert stored["name"] == "Order pizza"
    assert stored["userSays"] == ["one pizza", "a pizza"]
    assert (stored["action"], stored["webhook"]) == ("order", "https://hooks.test/a")


async def test_removing_a_parameter_removes_its_slots_and_the_phrases_that_were_only_a_slot(
    api: Api, story_id: str
) -> None:
    interaction_id = await api.create_interaction(
        story_id, "Order", userSays=["a {{size:size}} pizza", "pizza", "{{size:size}}"]
    )
    path = f"/stories/{story_id}/interactions/{interaction_id}"
    await api.ok("PUT", path, {"parameters": []})
    stored = await api.ok("GET", path)
    assert (stored["userSays"], stored["parameters"]) == (["a pizza", "pizza"], [])
    await api.ok("PUT", path, stored)  # the read is still a valid update


async def test_a_bad_update_changes_nothing(api: Api, story_id: str) -> None:
    interaction_id = await api.create_interaction(story_id, "Order", userSays=["a pizza"])
    path = f"/stories/{story_id}/interactions/{interaction_id}"
    before = await api.ok("GET", path)
    for body in (
        {"userSays": ["fine", ""]},
        {"parameters": [{"alias": "x", "entity": "nope"}]},
        {"triggers": ["welcome"]},
        {"webhook": "ftp://nowhere"},
    ):
        assert (await api.put(path, body)).status == 400, body
    assert await api.ok("GET", path) == before


async def test_webhook_is_empty_an_http_url_or_a_connection_id(api: Api, story_id: str) -> None:
    """A connection id is checked with integrations-api (tests/e2e/integrations_api);
    with none running, naming one answers 503 and stores nothing."""
    for webhook in ("", "https://hooks.test/x", "http://127.0.0.1:9000/h"):
        await api.create_interaction(story_id, "ok", webhook=webhook)
    unanswered = await api.post(
        f"/stories/{story_id}/interactions", {"name": "x", "webhook": "a" * 24}
    )
    assert unanswered.error == (503, "unavailable")
    assert len(await api.ok("GET", f"/stories/{story_id}/interactions")) == 5
    for webhook in ("not a url", "ftp://hooks.test", "A" * 24, "javascript:alert(1)"):
        reply = await api.post(
            f"/stories/{story_id}/interactions", {"name": "x", "webhook": webhook}
        )
        assert reply.error == (400, "validation_error"), webhook


async def test_a_trigger_belongs_to_one_interaction_and_welcome_to_the_welcome(
    api: Api, story_id: str
) -> None:
    await api.create_interaction(story_id, "Start", triggers=["start"])
    reply = await api.post(
        f"/stories/{story_id}/interactions", {"name": "x", "triggers": ["Start"]}
    )
    assert reply.error == (409, "conflict")
    reply = await api.post(
        f"/stories/{story_id}/interactions", {"name": "x", "triggers": ["welcome"]}
    )
    assert reply.error == (400, "validation_error")
    welcome_id = (await interactions_of(api, story_id))[0]["id"]
    path = f"/stories/{story_id}/interactions/{welcome_id}"
    await api.ok("PUT", path, {"triggers": ["hello"]})
    assert (await api.ok("GET", path))["triggers"] == ["welcome", "hello"]


async def test_unknown_interactions_are_not_found(api: Api, story_id: str) -> None:
    path = f"/stories/{story_id}/interactions/00000000-0000-4000-8000-000000000000"
    assert (await api.get(path)).error == (404, "not_found")
    assert (await api.put(path, {"name": "x"})).error == (404, "not_found")


async def test_bulk_delete_removes_subtrees_and_every_reference(api: Api, story_id: str) -> None:
    order = await api.create_interaction(story_id, "Order")
    size = await api.create_interaction(story_id, "Size", parent=order)
    crust = await api.create_interaction(story_id, "Crust", parent=size)
    help_id = await api.create_interaction(story_id, "Help")
    await api.ok(
        "PUT",
        f"/stories/{story_id}/contexts",
        [{"id": help_id, "root": True, "contextOut": [size], "references": [size]}],
    )
    await api.ok("DELETE", f"/stories/{story_id}/interactions", [size])
    story = await api.story(story_id)
    assert set(story["interactions"]) == set(story["order"])
    assert size not in story["interactions"] and crust not in story["interactions"]
    assert story["interactions"][order]["contextOut"] == []
    assert story["interactions"][help_id]["contextOut"] == []
    assert story["interactions"][help_id]["references"] == []
    for gone in (size, crust):
        reply = await api.get(f"/stories/{story_id}/interactions/{gone}")
        assert reply.error == (404, "not_found")


async def test_bulk_delete_is_all_or_nothing(api: Api, story_id: str) -> None:
    order = await api.create_interaction(story_id, "Order")
    welcome = (await interactions_of(api, story_id))[0]["id"]
    path = f"/stories/{story_id}/interactions"
    assert (await api.delete(path, [order, "ghost"])).error == (404, "not_found")
    assert (await api.delete(path, [order, welcome])).error == (400, "validation_error")
    for body in ([], {"ids": [order]}, [1]):
        assert (await api.delete(path, body)).error == (400, "validation_error"), body
    assert len(await interactions_of(api, story_id)) == 3


async def test_concurrent_writers_to_one_story_all_land(api: Api, story_id: str) -> None:
    """Each structural write is conditional on the story's revision and retried."""
    order = await api.create_interaction(story_id, "Order")
    children = await asyncio.gather(
        *(api.create_interaction(story_id, f"Child {i}", parent=order) for i in range(15)),
        *(api.create_interaction(story_id, f"Root {i}") for i in range(5)),
    )
    story = await api.story(story_id)
    assert sorted(story["interactions"][order]["contextOut"]) == sorted(children[:15])
    assert set(children[15:]) <= set(story["order"])
    assert len(story["interactions"]) == 23


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ({"type": "image", "imageUrl": "not a url at all"}, "imageUrl"),
        ({"type": "image", "imageUrl": "https://"}, "imageUrl"),
        ({"type": "card", "title": "A", "imageUrl": "https://x.io/a b.png"}, "imageUrl"),
        (
            {"type": "card", "title": "A", "buttons": [{"title": "Go", "postback": "https://"}]},
            "buttons",
        ),
        ({"type": "text", "messages": ["Hi", "  "]}, "messages"),
        ({"type": "quickReply", "title": " ", "replies": ["Yes"]}, "title"),
        ({"type": "quickReply", "title": "Sure?", "replies": ["\t"]}, "replies"),
        ({"type": "card", "title": "\n"}, "title"),
        ({"type": "buttonTemplate", "title": "Pick", "buttons": [{"title": " "}]}, "buttons"),
    ],
)
async def test_a_blank_text_or_an_address_that_is_no_web_address_is_refused_by_name(
    api: Api, story_id: str, block: dict[str, Any], field: str
) -> None:
    body = {"name": "x", "responses": [{"type": "text", "messages": ["ok"]}, block]}
    reply = await api.post(f"/stories/{story_id}/interactions", body)
    assert reply.error == (400, "validation_error")
    assert field in reply.body["status"]["errors"]["responses"]["1"]
    assert len(await interactions_of(api, story_id)) == 2


async def test_addresses_made_with_parameters_are_stored(api: Api, story_id: str) -> None:
    blocks = [
        {"type": "image", "imageUrl": "{{picture}}"},
        {"type": "image", "imageUrl": "https://cdn.example/{{id}}.png"},
        {
            "type": "card",
            "title": "A",
            "buttons": [{"title": "Web", "postback": "https://x.io/{{p}}"}],
        },
    ]
    reply = await api.post(f"/stories/{story_id}/interactions", {"name": "x", "responses": blocks})
    assert reply.status == 200, reply.body
