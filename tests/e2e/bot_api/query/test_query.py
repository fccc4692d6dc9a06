"""POST /query over HTTP: what a chat client sees."""

import asyncio
import dataclasses
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api, Tenant


@pytest.fixture
async def pizza(alice: Tenant) -> dict[str, str]:
    api = alice.developer
    await api.create_entity("size", "small", "large")
    await api.ok(
        "PUT",
        f"/entities/{(await api.ok('GET', '/entities'))[0]['id']}",
        {
            "name": "size",
            "entries": [
                {"value": "small", "synonyms": [{"value": "small"}]},
                {"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]},
            ],
        },
    )
    story_id = await api.create_story("Pizza")
    order = await api.create_interaction(
        story_id,
        "Order",
        action="order.pizza",
        userSays=["I want a {{size:size}} pizza", "I would like to order a pizza"],
        parameters=[{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
        responses=[
            {"type": "text", "messages": ["A {{size}} pizza for {{default_name}}."]},
            {"type": "quickReply", "title": "Drink?", "replies": ["Cola", "No"]},
        ],
    )
    confirm = await api.create_interaction(
        story_id,
        "Confirm",
        parent=order,
        userSays=["yes that is right"],
        responses=[{"type": "text", "messages": ["Confirmed."]}],
    )
    return {"story": story_id, "order": order, "confirm": confirm}


async def ask(api: Api, **body: Any) -> dict[str, Any]:
    reply = await api.post("/query", {"sessionId": "s1", **body})
    assert reply.status == 200, reply.body
    return dict(reply.body)


def texts(body: dict[str, Any]) -> list[str]:
    return [i["message"] for i in body["result"]["fulfillment"] if i["type"] == "text"]


async def test_the_welcome_trigger_with_default_name_as_in_the_spec(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    body = await ask(
        alice.public,
        storyId=pizza["story"],
        trigger="welcome",
        parameters={"default_name": "Ada"},
    )
    result = body["result"]
    assert texts(body) == ["Hello Ada!"]
    assert result["parameters"] == {"default_name": "Ada"}
    assert result["interaction"]["type"] == "welcome"
    assert (result["resolvedQuery"], result["trigger"], result["source"]) == (
        "",
        "welcome",
        "agent",
    )
    assert body["sessionId"] == "s1"
    assert body["status"] == {"code": 200, "type": "success"}
    assert set(result) == {
        "source", "resolvedQuery", "trigger", "confidence", "score", "lifespan",
        "incomplete", "storyId", "interaction", "parameters", "contexts", "fulfillment",
    }  # fmt: skip


async def test_a_message_matches_fills_parameters_and_opens_its_context(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    body = await ask(alice.public, query="I want a BIG pizza!", parameters={"default_name": "Bo"})
    result = body["result"]
    assert result["interaction"] == {
        "id": pizza["order"],
        "name": "Order",
        "action": "order.pizza",
        "type": "standard",
    }
    assert result["storyId"] == pizza["story"]
    assert result["resolvedQuery"] == "I want a BIG pizza!"
    assert result["parameters"] == {"default_name": "Bo", "size": "large"}
    drink = {"type": "quickReply", "title": "Drink?", "replies": ["Cola", "No"]}
    assert result["fulfillment"] == [
        {"type": "text", "message": "A large pizza for Bo."},
        {"type": "quickReply", "messages": [drink]},
    ]
    assert result["contexts"] == [{"id": pizza["order"], "name": "Order", "lifespan": 2}]
    assert result["confidence"] == 0.5 and 0.5 <= result["score"] <= 1
    follow_up = await ask(alice.public, query="yes, that's right")
    assert follow_up["result"]["interaction"]["id"] == pizza["confirm"]


async def test_slot_filling_asks_then_completes(alice: Tenant, pizza: dict[str, str]) -> None:
    asked = await ask(alice.public, query="I would like to order a pizza")
    assert (texts(asked), asked["result"]["incomplete"]) == (["Which size?"], True)
    done = await ask(alice.public, query="small")
    assert (texts(done)[0], done["result"]["incomplete"]) == ("A small pizza for.", False)


async def test_a_quick_reply_while_a_parameter_is_asked_keeps_what_was_collected(
    alice: Tenant,
) -> None:
    api = alice.developer
    await api.create_entity("flower", "roses", "tulips")
    await api.create_entity("container", "vase", "bouquet")
    story_id = await api.create_story("Flowers")
    await api.create_interaction(
        story_id,
        "Send flowers",
        userSays=["I want {{flower:flower}} in a {{container:container}}", "send flowers"],
        parameters=[
            {"alias": "flower", "entity": "flower", "prompts": ["Which flower?"]},
            {"alias": "container", "entity": "container", "prompts": ["Vase or bouquet?"]},
        ],
        responses=[{"type": "text", "messages": ["{{flower}} in a {{container}}."]}],
    )
    turn = {"storyId": story_id, "sessionId": "flowers"}
    asked = await ask(alice.public, **turn, query="send flowers")
    assert texts(asked) == ["Which flower?"]
    vase = await ask(alice.public, **turn, query="A vase")
    assert (texts(vase), vase["result"]["parameters"]) == (["Which flower?"], {"container": "vase"})
    again = await ask(alice.public, **turn, query="send flowers")
    assert (texts(again), again["result"]["parameters"]) == (
        ["Which flower?"],
        {"container": "vase"},
    )
    done = await ask(alice.public, **turn, query="roses")
    assert (texts(done), done["result"]["incomplete"]) == (["roses in a vase."], False)


async def test_a_prompt_with_replies_answers_quick_replies_and_a_click_fills_the_slot(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    api, path = alice.developer, f"/stories/{pizza['story']}/interactions/{pizza['order']}"
    parameters = [
        {
            "alias": "size",
            "entity": "size",
            "prompts": ["Which size, {{default_name}}?"],
            "promptReplies": ["small", "big"],
        }
    ]
    await api.ok("PUT", path, {"parameters": parameters})
    assert (await api.ok("GET", path))["parameters"] == [{**parameters[0], "required": True}]
    asked = await ask(
        alice.public, query="I would like to order a pizza", parameters={"default_name": "Bo"}
    )
    choices = {"type": "quickReply", "title": "Which size, Bo?", "replies": ["small", "big"]}
    assert asked["result"]["fulfillment"] == [{"type": "quickReply", "messages": [choices]}]
    assert asked["result"]["incomplete"] is True
    clicked = await ask(alice.public, query="big")
    assert (texts(clicked), clicked["result"]["parameters"]["size"]) == (
        ["A large pizza for Bo."],
        "large",
    )


async def test_the_session_id_may_be_a_number(alice: Tenant, pizza: dict[str, str]) -> None:
    reply = await alice.public.post("/query", {"sessionId": 42, "trigger": "welcome"})
    assert reply.body["sessionId"] == "42"


async def test_the_developer_token_may_query_too_and_the_oldest_story_is_the_default(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    await alice.developer.create_story("Newer")
    body = await ask(alice.developer, query="I want a large pizza")
    assert body["result"]["storyId"] == pizza["story"]


async def test_an_edit_is_answered_on_the_very_next_query(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    api = alice.developer
    assert (await ask(alice.public, query="opening hours please"))["result"]["interaction"][
        "type"
    ] == "fallback"
    hours = await api.create_interaction(pizza["story"], "Hours", userSays=["opening hours please"])
    assert (await ask(alice.public, query="opening hours please"))["result"]["interaction"][
        "id"
    ] == hours
    await api.ok(
        "PUT",
        f"/stories/{pizza['story']}/interactions/{hours}",
        {"userSays": ["when do you close"]},
    )
    assert (await ask(alice.public, query="when do you close"))["result"]["interaction"][
        "id"
    ] == hours
    await api.ok(
        "PUT",
        f"/stories/{pizza['story']}",
        {"name": "Pizza", "description": "", "settings": {"fallback": False}},
    )
    missed = await ask(alice.public, query="opening hours please")
    assert (missed["result"]["interaction"], missed["result"]["fulfillment"]) == (None, [])
    await api.ok("DELETE", f"/stories/{pizza['story']}/interactions", [hours])
    assert (await ask(alice.public, query="when do you close"))["result"]["interaction"] is None


async def test_an_entity_edit_is_recognised_on_the_next_query(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    api = alice.developer
    entity_id = (await api.ok("GET", "/entities"))[0]["id"]
    await api.ok(
        "PUT",
        f"/entities/{entity_id}",
        {
            "name": "size",
            "entries": [
                {"value": "small", "synonyms": [{"value": "small"}, {"value": "mini"}]},
                {"value": "large", "synonyms": [{"value": "large"}]},
            ],
        },
    )
    body = await ask(alice.public, query="I want a mini pizza")
    assert body["result"]["parameters"]["size"] == "small"


async def test_triggers_and_gotos_that_lead_nowhere(alice: Tenant, pizza: dict[str, str]) -> None:
    reply = await alice.public.post("/query", {"sessionId": "s", "trigger": "dance"})
    assert reply.error == (400, "validation_error")
    assert "'dance'" in reply.details
    reply = await alice.public.post("/query", {"sessionId": "s", "goto": "nowhere"})
    assert reply.error == (404, "not_found")
    body = await ask(alice.public, goto=pizza["confirm"])
    assert texts(body) == ["Confirmed."]


@pytest.mark.parametrize(
    "body",
    [
        {"query": "hi"},
        {"sessionId": "s"},
        {"sessionId": "s", "query": "hi", "trigger": "welcome"},
        {"sessionId": "", "query": "hi"},
        {"sessionId": "x" * 257, "query": "hi"},
        {"sessionId": True, "query": "hi"},
        {"sessionId": "s", "query": ""},
        {"sessionId": "s", "query": "x" * 2049},
        {"sessionId": "s", "trigger": "a-b"},
        {"sessionId": "s", "query": "hi", "confidence": 1.5},
        {"sessionId": "s", "query": "hi", "lifespan": 0},
        {"sessionId": "s", "query": "hi", "lifespan": 11},
        {"sessionId": "s", "query": "hi", "reset": "yes"},
        {"sessionId": "s", "query": "hi", "parameters": {"a": {"nested": 1}}},
        {"sessionId": "s", "query": "hi", "parameters": {"bad key": 1}},
        {"sessionId": "s", "query": "hi", "colour": "red"},
    ],
)
async def test_malformed_requests_are_refused_and_leave_the_session_untouched(
    alice: Tenant, pizza: dict[str, str], body: dict[str, Any]
) -> None:
    await ask(alice.public, sessionId="s", query="I want a large pizza")
    reply = await alice.public.post("/query", body)
    assert reply.error == (400, "validation_error")
    after = await ask(alice.public, sessionId="s", trigger="welcome")
    assert after["result"]["parameters"] == {"size": "large"}


async def test_another_accounts_story_is_not_found(
    alice: Tenant, bob: Tenant, pizza: dict[str, str]
) -> None:
    for client in (bob.public, bob.developer):
        reply = await client.post(
            "/query", {"sessionId": "s", "storyId": pizza["story"], "trigger": "welcome"}
        )
        assert reply.error == (404, "not_found")
    reply = await bob.public.post("/query", {"sessionId": "s", "trigger": "welcome"})
    assert reply.error == (404, "not_found")
    reply = await alice.public.as_token(None).post(
        "/query", {"sessionId": "s", "trigger": "welcome"}
    )
    assert reply.error == (401, "unauthorized")


async def test_debug_shows_candidates_and_why_the_winner_won(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    body = await ask(alice.developer, query="I want a large pizza", debug=True)
    debug = body["result"]["debug"]
    assert debug["candidates"][0]["name"] == "Order"
    assert debug["entities"] == [{"entity": "size", "value": "large", "text": "large"}]
    assert debug["decision"].startswith("best score")


async def test_debug_with_the_public_key_is_forbidden_and_reveals_nothing(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    body = {"sessionId": "s1", "query": "I want a large pizza", "debug": True}
    reply = await alice.public.post("/query", body)
    assert reply.error == (403, "forbidden")
    assert "developer token" in reply.details
    assert "result" not in reply.body
    assert "Order" not in str(reply.body)
    without_debug = await ask(alice.public, query="I want a large pizza")
    assert "debug" not in without_debug["result"]


async def test_reset_and_the_idle_timeout_forget_the_session(
    aiohttp_client: Any, config: Config, accounts: AccountRepository
) -> None:
    short = dataclasses.replace(config, session_idle_seconds=1)
    client: TestClient = await aiohttp_client(create_app(short))
    tokens = await accounts.create("carol")
    api = Api(client, tokens.developer_token)
    await api.create_story()
    await ask(api, trigger="welcome", parameters={"remember": "me"})
    assert (await ask(api, trigger="welcome"))["result"]["parameters"] == {"remember": "me"}
    assert (await ask(api, trigger="welcome", reset=True))["result"]["parameters"] == {}
    await ask(api, trigger="welcome", parameters={"remember": "me"})
    await asyncio.sleep(1.2)
    assert (await ask(api, trigger="welcome"))["result"]["parameters"] == {}


async def test_fifty_concurrent_queries_on_one_session_lose_no_parameter(
    alice: Tenant, pizza: dict[str, str]
) -> None:
    replies = await asyncio.gather(
        *(
            alice.public.post(
                "/query", {"sessionId": "busy", "trigger": "welcome", "parameters": {f"p{i}": i}}
            )
            for i in range(50)
        )
    )
    assert {r.status for r in replies} == {200}
    final = await ask(alice.public, sessionId="busy", trigger="welcome")
    assert final["result"]["parameters"] == {f"p{i}": i for i in range(50)}
