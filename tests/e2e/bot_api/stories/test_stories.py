"""Stories: create, list, read (order, tree, summaries, settings), update, delete."""

import re

from pymongo import MongoClient

from shared.config import Config
from support.api import Api

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


async def test_create_answers_the_new_id_in_the_success_envelope(api: Api) -> None:
    body = await api.ok("POST", "/stories", {"name": "Pizza", "description": "Orders"})
    assert re.fullmatch(r"[0-9a-f]{24}", body["id"])
    assert body["status"] == {"code": 200, "errorType": "success"}
    assert ISO_UTC.match(body["timestamp"])


async def test_the_list_shows_only_name_description_and_id_oldest_first(api: Api) -> None:
    first = await api.create_story("First", description="one")
    second = await api.create_story("Second", description="two")
    assert await api.ok("GET", "/stories") == [
        {"name": "First", "description": "one", "id": first},
        {"name": "Second", "description": "two", "id": second},
    ]


async def test_a_new_story_reads_with_welcome_fallback_and_default_settings(api: Api) -> None:
    story_id = await api.create_story("Pizza", description="Orders")
    story = await api.story(story_id)
    assert set(story) == {
        "name",
        "description",
        "id",
        "order",
        "story",
        "interactions",
        "settings",
        "phrasesAwaitingMeaning",
    }
    assert story["phrasesAwaitingMeaning"] == 0  # the semantic stage is off here
    assert (await api.put(f"/stories/{story_id}", story)).status == 200  # a read is an update
    assert story["settings"] == {
        "confidence": 0.5,
        "fallback": True,
        "lifespan": 2,
        "language": "english",
        "languages": [],
        "answerAnyLanguage": False,
        "history": True,
        "historyDays": 30,
        "redact": True,
        "reviewBelow": None,
        "timezone": "UTC",
        "generateKnowledgeAnswers": False,
        "handoffReturnMessage": "You are talking to the bot again.",
        "published": None,
    }
    welcome, fallback = story["order"]
    assert story["story"] == [{"id": welcome, "childrens": []}, {"id": fallback, "childrens": []}]
    assert story["interactions"][welcome] == {
        "id": welcome,
        "name": "Welcome",
        "root": True,
        "references": [],
        "contextOut": [],
        "webhook": "",
    }
    interactions = await api.ok("GET", f"/stories/{story_id}/interactions")
    assert [(i["type"], i["triggers"]) for i in interactions] == [
        ("welcome", ["welcome"]),
        ("fallback", []),
    ]


async def test_settings_are_taken_on_create_and_merged_on_update(api: Api) -> None:
    story_id = await api.create_story("Pizza", settings={"confidence": 0.8, "fallback": False})
    assert (await api.story(story_id))["settings"] == {
        "confidence": 0.8,
        "fallback": False,
        "lifespan": 2,
        "language": "english",
        "languages": [],
        "answerAnyLanguage": False,
        "history": True,
        "historyDays": 30,
        "redact": True,
        "reviewBelow": None,
        "timezone": "UTC",
        "generateKnowledgeAnswers": False,
        "handoffReturnMessage": "You are talking to the bot again.",
        "published": None,
    }
    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {
            "name": "Pizza",
            "description": "",
            "settings": {"lifespan": 5, "language": "german", "historyDays": 7, "redact": False},
        },
    )
    assert (await api.story(story_id))["settings"] == {
        "confidence": 0.8,
        "fallback": False,
        "lifespan": 5,
        "language": "german",
        "languages": [],
        "answerAnyLanguage": False,
        "history": True,
        "historyDays": 7,
        "redact": False,
        "reviewBelow": None,
        "timezone": "UTC",
        "generateKnowledgeAnswers": False,
        "handoffReturnMessage": "You are talking to the bot again.",
        "published": None,
    }


async def test_a_new_story_greets_back_in_its_language_and_keeps_its_texts_after_a_change(
    api: Api,
) -> None:
    story_id = await api.create_story("Tienda", settings={"language": "spanish"})

    async def answer(query: str) -> tuple[str, list[str]]:
        reply = await api.post("/query", {"sessionId": "s", "storyId": story_id, "query": query})
        assert reply.status == 200, reply.body
        result = reply.body["result"]
        return result["interaction"]["type"], [i["message"] for i in result["fulfillment"]]

    for greeting in ("hola", "Buenos días", "good morning", "hi"):
        assert await answer(greeting) == ("welcome", ["¡Hola!"])
    body = {"name": "Tienda", "description": "", "settings": {"language": "french"}}
    await api.ok("PUT", f"/stories/{story_id}", body)
    assert await answer("hola") == ("welcome", ["¡Hola!"])
    kind, [message] = await answer("zzz qqq")
    assert (kind, message) in {
        ("fallback", "Perdón, no lo he entendido."),
        ("fallback", "¿Puedes decirlo de otra manera?"),
    }


async def test_settings_out_of_range_or_of_the_wrong_type_are_refused(api: Api) -> None:
    for settings in (
        {"confidence": 1.5},
        {"confidence": "0.5"},
        {"lifespan": 0},
        {"lifespan": 11},
        {"lifespan": 2.5},
        {"fallback": "yes"},
        {"fallback": 1},
        {"language": "klingon"},
        {"language": 1},
        {"history": "yes"},
        {"historyDays": 0},
        {"historyDays": 366},
        {"historyDays": 7.5},
        {"redact": 0},
        {"other": 1},
    ):
        reply = await api.post("/stories", {"name": "x", "description": "", "settings": settings})
        assert reply.error == (400, "validation_error"), settings
        assert "settings" in reply.body["status"]["errors"]
    assert await api.ok("GET", "/stories") == []


async def test_update_renames_and_rejects_a_bad_body_without_changing_anything(api: Api) -> None:
    story_id = await api.create_story("Pizza", description="Orders")
    await api.ok("PUT", f"/stories/{story_id}", {"name": "Pasta", "description": "Bowls"})
    before = await api.story(story_id)
    assert (before["name"], before["description"]) == ("Pasta", "Bowls")
    reply = await api.put(f"/stories/{story_id}", {"name": "", "description": "x"})
    assert reply.error == (400, "validation_error")
    assert await api.story(story_id) == before


async def test_update_may_reorder_the_roots_but_must_list_each_exactly_once(api: Api) -> None:
    story_id = await api.create_story()
    order_id = await api.create_interaction(story_id, "Order")
    welcome, fallback, _ = (await api.story(story_id))["order"]
    body = {"name": "Pizza", "description": ""}
    await api.ok("PUT", f"/stories/{story_id}", {**body, "order": [order_id, welcome, fallback]})
    assert (await api.story(story_id))["order"] == [order_id, welcome, fallback]
    reply = await api.put(f"/stories/{story_id}", {**body, "name": "Renamed", "order": [welcome]})
    assert reply.error == (400, "validation_error")
    after = await api.story(story_id)
    assert (after["name"], after["order"]) == ("Pizza", [order_id, welcome, fallback])


async def test_a_story_read_can_be_sent_back_as_an_update(api: Api) -> None:
    story_id = await api.create_story("Pizza")
    read = await api.story(story_id)
    await api.ok("PUT", f"/stories/{story_id}", {**read, "name": "Pasta"})
    assert await api.story(story_id) == {**read, "name": "Pasta"}


async def test_unknown_and_malformed_story_ids_are_not_found(api: Api) -> None:
    for story_id in ("0123456789abcdef01234567", "not-an-id", "x" * 300):
        for method in ("GET", "PUT", "DELETE"):
            body = {"name": "x", "description": ""} if method == "PUT" else None
            reply = await api.call(method, f"/stories/{story_id}", body)
            assert reply.error == (404, "not_found"), (method, story_id)


async def test_delete_removes_the_story_its_interactions_and_its_sessions(
    api: Api, config: Config
) -> None:
    doomed = await api.create_story("Doomed")
    kept = await api.create_story("Kept")
    await api.create_interaction(doomed, "Order", userSays=["a pizza"])
    with MongoClient(config.mongodb_url) as client:
        sessions = client[config.bot_database]["sessions"]
        sessions.insert_many([{"_id": f"{doomed}:s1"}, {"_id": f"{kept}:s1"}])
        await api.ok("DELETE", f"/stories/{doomed}")
        assert (await api.get(f"/stories/{doomed}")).error == (404, "not_found")
        assert [s["id"] for s in await api.ok("GET", "/stories")] == [kept]
        interactions = client[config.bot_database]["interactions"]
        assert interactions.count_documents({"storyId": doomed}) == 0
        assert interactions.count_documents({"storyId": kept}) == 2
        assert [s["_id"] for s in sessions.find({})] == [f"{kept}:s1"]
    assert (await api.delete(f"/stories/{doomed}")).error == (404, "not_found")


async def test_review_below_is_a_score_or_null_and_merged_on_update(api: Api) -> None:
    story_id = await api.create_story("Pizza", settings={"reviewBelow": 0.7})
    assert (await api.story(story_id))["settings"]["reviewBelow"] == 0.7
    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {"name": "Pizza", "description": "", "settings": {"reviewBelow": None}},
    )
    assert (await api.story(story_id))["settings"]["reviewBelow"] is None
    for wrong in (1.5, "0.7", True):
        body = {"name": "Pizza", "description": "", "settings": {"reviewBelow": wrong}}
        answer = await api.call("PUT", f"/stories/{story_id}", body)
        assert answer.status == 400, wrong
