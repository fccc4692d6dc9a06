"""A story as a file through the API: export (JSON and YAML), import of the document,
dry runs, and refusals listing every problem with its place (docs/import-export.md)."""

import copy
import io
import json
import zipfile
from typing import Any

import yaml

from support.api import Api, Tenant
from support.forms import folder_form
from support.walkthrough import pizza_story


async def export(api: Api, story_id: str) -> dict[str, Any]:
    return dict(await api.ok("GET", f"/stories/{story_id}/export"))


async def import_document(api: Api, document: Any, query: str = "") -> Any:
    return await api.call("POST", f"/stories/import{query}", document)


async def test_the_export_names_interactions_by_key_and_carries_the_entities(api: Api) -> None:
    document = await export(api, await pizza_story(api))
    assert document["format"] == "parley.story" and document["version"] == 1
    assert document["name"] == "Pizza" and document["description"] == "Takes orders"
    assert document["settings"]["language"] == "english"
    assert [i["key"] for i in document["interactions"]] == [
        "welcome",
        "fallback",
        "order",
        "drinks",
    ]
    order = document["interactions"][2]
    assert order["root"] is True and order["contextOut"] == ["drinks"]
    assert order["parameters"] == [{"alias": "size", "entity": "size", "prompts": ["Which size?"]}]
    assert document["interactions"][3]["root"] is False
    assert [e["name"] for e in document["entities"]] == ["size"]
    assert document["connections"] == []
    assert "id" not in order


async def test_export_then_import_then_export_gives_the_same_document(api: Api) -> None:
    first = await export(api, await pizza_story(api))
    reply = await import_document(api, first)
    assert reply.status == 200, reply.body
    assert reply.body["status"] == {"code": 200, "errorType": "success"}
    report = reply.body["report"]
    assert report["entities"] == [
        {"name": "size", "status": "reused", "storedAs": "size", "detail": ""}
    ]
    assert [i["key"] for i in report["interactions"]] == ["welcome", "fallback", "order", "drinks"]
    assert await export(api, reply.body["id"]) == first


async def test_a_prompt_s_replies_go_out_and_come_back_unchanged(api: Api) -> None:
    story_id = await pizza_story(api)
    interactions = await api.ok("GET", f"/stories/{story_id}/interactions")
    order = next(i for i in interactions if i["name"] == "Order")
    parameter = {
        "alias": "size",
        "entity": "size",
        "prompts": ["Which size?"],
        "promptReplies": ["small", " big "],
    }
    path = f"/stories/{story_id}/interactions/{order['id']}"
    await api.ok("PUT", path, {"parameters": [parameter]})
    first = await export(api, story_id)
    assert first["interactions"][2]["parameters"] == [parameter]
    reply = await import_document(api, first)
    assert reply.status == 200, reply.body
    assert await export(api, reply.body["id"]) == first


async def test_the_imported_story_answers_as_the_exported_one(api: Api, alice: Tenant) -> None:
    first = await export(api, await pizza_story(api))
    story_id = (await import_document(api, first)).body["id"]
    query = {"storyId": story_id, "sessionId": "s1", "query": "i want a big pizza"}
    result = (await alice.public.ok("POST", "/query", query))["result"]
    assert result["interaction"]["name"] == "Order"
    assert result["parameters"] == {"size": "large"}
    query = {**query, "query": "something to drink"}
    assert (await alice.public.ok("POST", "/query", query))["result"]["interaction"][
        "name"
    ] == "Drinks"


async def test_yaml_export_imports_as_yaml(api: Api) -> None:
    story_id = await pizza_story(api)
    reply = await api.client.get(
        f"/stories/{story_id}/export?format=yaml",
        headers={"Authorization": f"Bearer {api.token}"},
    )
    assert reply.status == 200 and reply.content_type == "application/yaml"
    text = await reply.text()
    assert yaml.safe_load(text) == await export(api, story_id)
    imported = await api.send_raw("/stories/import", text.encode(), "application/yaml")
    assert imported.status == 200, imported.body
    assert await export(api, imported.body["id"]) == await export(api, story_id)


async def test_a_dry_run_reports_and_writes_nothing(api: Api) -> None:
    document = await export(api, await pizza_story(api))
    stories_before = await api.ok("GET", "/stories")
    reply = await import_document(api, document, "?dryRun=true")
    assert reply.status == 200, reply.body
    assert reply.body["id"] is None
    assert reply.body["report"]["dryRun"] is True
    assert all("id" not in i for i in reply.body["report"]["interactions"])
    assert await api.ok("GET", "/stories") == stories_before


async def test_an_entity_that_differs_is_created_under_a_free_name_and_both_bots_work(
    api: Api, alice: Tenant
) -> None:
    """Two bots with an entity `size` of other entries: each fills its own."""
    pizza = await pizza_story(api)
    document = await export(api, pizza)
    document["name"] = "Cakes"
    document["entities"][0]["entries"] = [
        {"value": "family", "synonyms": [{"value": "family"}, {"value": "huge"}]}
    ]
    document["entities"].append(
        {"name": "topping", "entries": [{"value": "ham", "synonyms": [{"value": "ham"}]}]}
    )
    reply = await import_document(api, document)
    assert reply.status == 200, reply.body
    report = reply.body["report"]
    assert report["entities"] == [
        {
            "name": "size",
            "status": "created",
            "storedAs": "size_2",
            "detail": "created as size_2: the account's size differs (it lacks 'family'; "
            "it also has 'large', 'small')",
        },
        {"name": "topping", "status": "created", "storedAs": "topping", "detail": ""},
    ]
    names = sorted(e["name"] for e in await api.ok("GET", "/entities"))
    assert names == ["size", "size_2", "topping"]

    cakes = {"storyId": reply.body["id"], "sessionId": "c1", "query": "a pizza please"}
    asked = (await alice.public.ok("POST", "/query", cakes))["result"]
    assert asked["incomplete"] and asked["fulfillment"][0]["message"] == "Which size?"
    done = (await alice.public.ok("POST", "/query", {**cakes, "query": "huge"}))["result"]
    assert done["parameters"] == {"size": "family"} and not done["incomplete"]
    original = {"storyId": pizza, "sessionId": "p1", "query": "i want a big pizza"}
    result = (await alice.public.ok("POST", "/query", original))["result"]
    assert result["parameters"] == {"size": "large"}


async def test_every_problem_is_answered_at_its_place_and_nothing_is_written(api: Api) -> None:
    document = await export(api, await pizza_story(api))
    broken = copy.deepcopy(document)
    broken["interactions"][2]["userSays"].append("x" * 3000)
    broken["interactions"][3]["contextOut"] = ["nowhere"]
    broken["interactions"][1]["triggers"] = ["welcome"]
    broken["interactions"][2]["parameters"][0]["entity"] = "colour"
    stories_before = await api.ok("GET", "/stories")
    reply = await import_document(api, broken)
    assert reply.error == (400, "validation_error")
    errors = reply.body["status"]["errors"]["interactions"]
    assert set(errors) == {"2", "3"}, errors
    assert "userSays" in errors["2"]
    assert errors["3"] == {"contextOut": {"0": ["no interaction has the key 'nowhere'"]}}
    assert await api.ok("GET", "/stories") == stories_before
    broken = copy.deepcopy(document)
    broken["interactions"][1]["triggers"] = ["welcome"]
    broken["interactions"][2]["parameters"][0]["entity"] = "colour"
    broken["interactions"][2]["userSays"] = ["I want a {{colour:size}} pizza"]
    reply = await import_document(api, broken)
    assert reply.error == (400, "validation_error")
    errors = reply.body["status"]["errors"]["interactions"]
    assert "reserved for the welcome" in str(errors["1"]["triggers"])
    assert "neither in the document nor in the account" in str(errors["2"]["parameters"])
    assert await api.ok("GET", "/stories") == stories_before


async def test_a_document_of_another_format_or_version_is_refused(api: Api) -> None:
    document = await export(api, await pizza_story(api))
    reply = await import_document(api, {**document, "version": 2})
    assert reply.error == (400, "validation_error") and "version" in reply.details
    reply = await import_document(api, {**document, "format": "dialogflow"})
    assert reply.error == (400, "validation_error") and "format" in reply.details
    reply = await api.send_raw("/stories/import", b"a: *b", "application/yaml")
    assert reply.status == 400
    reply = await api.send_raw("/stories/import", b"PK\x03\x04 not a zip", "application/zip")
    assert reply.error == (400, "bad_request") and "ZIP" in reply.details
    reply = await api.send_raw("/stories/import", b"name: x", "text/plain")
    assert reply.status == 415
    lone_surrogate = json.dumps({**document, "name": "\ud800"}).encode()
    reply = await api.send_raw("/stories/import", lone_surrogate, "application/json")
    assert reply.error == (400, "bad_request") and "surrogate" in reply.details


async def test_a_document_without_welcome_or_fallback_gets_the_defaults(api: Api) -> None:
    document = {
        "format": "parley.story",
        "version": 1,
        "name": "Hours",
        "settings": {"language": "de"},
        "interactions": [{"key": "hours", "name": "Hours", "userSays": ["wann habt ihr offen"]}],
    }
    reply = await import_document(api, document)
    assert reply.status == 200, reply.body
    assert reply.body["report"]["added"] == ["welcome", "fallback"]
    exported = await export(api, reply.body["id"])
    assert [i["type"] for i in exported["interactions"]] == ["standard", "welcome", "fallback"]
    assert exported["settings"]["language"] == "german"


async def test_a_project_holding_a_value_json_cannot_is_refused(api: Api) -> None:
    """YAML can say what a story cannot hold (`!!binary`, `!!set`): a 400, not a 500."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("domain.yml", "responses:\n  utter_hi:\n  - text: !!binary aGk=\n")
        archive.writestr("data/nlu.yml", "nlu:\n- intent: hi\n  examples: |\n    - hi\n")
        archive.writestr(
            "data/rules.yml", "rules:\n- rule: hi\n  steps:\n  - intent: hi\n  - action: utter_hi\n"
        )
    reply = await api.send_raw("/stories/import", buffer.getvalue(), "application/zip")
    assert reply.error == (400, "bad_request"), reply.body
    assert reply.details == "domain.yml: holds a value JSON has no form for"


async def test_import_takes_a_post_only_and_keys_are_ascii(api: Api) -> None:
    for method in ("GET", "PUT", "DELETE", "OPTIONS"):
        reply = await api.call(method, "/stories/import")
        assert reply.error == (405, "method_not_allowed"), method
        assert reply.headers["Allow"] == "POST"
    document = await export(api, await pizza_story(api))
    document["interactions"][0]["key"] = "grüße"
    reply = await import_document(api, document)
    assert reply.error == (400, "validation_error")
    assert "ASCII" in str(reply.body["status"]["errors"]["interactions"]["0"]["key"])


async def test_an_import_retried_with_its_idempotency_key_makes_one_story(api: Api) -> None:
    document = await export(api, await pizza_story(api))
    headers = {"Idempotency-Key": "import-1"}
    first = await api.call("POST", "/stories/import", document, headers)
    again = await api.call("POST", "/stories/import", document, headers)
    assert first.status == again.status == 200, (first.body, again.body)
    assert again.body["id"] == first.body["id"]
    assert again.body["report"] == first.body["report"]
    assert len(await api.ok("GET", "/stories")) == 2
    other = await api.call("POST", "/stories/import", {**document, "name": "Other"}, headers)
    assert other.error == (409, "conflict")


async def test_a_handoff_block_naming_an_id_is_refused_by_an_import_at_its_place(
    api: Api,
) -> None:
    """A document names a handoff's connection by name (`handoff`): an id means nothing
    to a new story (tests/e2e/bot_api/handoffs/test_handoffs.py has the round trip)."""
    document = await export(api, await pizza_story(api))
    handing = copy.deepcopy(document)
    handoff = {"type": "handoff", "connection": "a" * 24}
    handing["interactions"][2]["responses"].append(handoff)
    stories_before = await api.ok("GET", "/stories")

    reply = await import_document(api, handing)

    assert reply.error == (400, "validation_error")
    place = len(handing["interactions"][2]["responses"]) - 1
    errors = reply.body["status"]["errors"]["interactions"]["2"]["responses"][str(place)]
    assert "name the connection with `handoff`" in str(errors["connection"])
    assert await api.ok("GET", "/stories") == stories_before
    assert (await import_document(api, document)).status == 200


async def test_a_folder_sent_as_a_form_imports_under_the_name_sent(api: Api) -> None:
    """What the console sends of a picked folder: a Rasa project naming itself nowhere."""
    files = {
        "domain.yml": "version: '3.1'\nintents: [greet]\n",
        "data/nlu.yml": "version: '3.1'\nnlu:\n- intent: greet\n  examples: |\n    - hello\n",
    }
    body, content_type = folder_form({p: text.encode() for p, text in files.items()})
    reply = await api.send_raw("/stories/import?dryRun=true&name=carbon-bot", body, content_type)
    assert reply.status == 200, reply.body
    report = reply.body["report"]
    assert (report["source"], report["name"]) == ("rasa", "carbon-bot")
    assert report["silent"]["count"] == 1
    assert report["silent"]["byReason"][0]["interactions"] == [{"key": "greet", "name": "greet"}]
