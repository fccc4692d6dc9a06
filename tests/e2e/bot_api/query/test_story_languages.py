"""A story in several languages over HTTP (docs/languages.md): the settings, the
interactions' and entities' translations read back as written, a German user answered in
German with `result.language` and `result.answeredIn`, the variants exported and imported
unchanged, and bad languages refused."""

import io
import json
import zipfile
from typing import Any

from support.api import Api

ORDER = {
    "name": "Order",
    "userSays": ["I want a {{size:size}} pizza", "I would like to order a pizza"],
    "parameters": [{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
    "responses": [{"type": "text", "messages": ["One {{size}} pizza coming."]}],
    "translations": {
        "de": {
            "userSays": ["Ich möchte eine {{size:size}} Pizza", "Ich will eine Pizza bestellen"],
            "responses": [
                {"type": "text", "messages": ["Eine {{size}} Pizza kommt."]},
                {"type": "quickReply", "title": "Noch etwas?", "replies": ["Getränke"]},
            ],
            "parameters": [{"alias": "size", "prompts": ["Welche Größe?"]}],
        }
    },
}
SIZE = {
    "name": "size",
    "entries": [{"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]}],
    "translations": {
        "de": [{"value": "large", "synonyms": [{"value": "groß"}, {"value": "große"}]}]
    },
}


async def german_pizza(api: Api) -> tuple[str, str]:
    await api.ok("POST", "/entities", SIZE)
    story_id = await api.create_story(settings={"languages": ["de", "fr"]})
    return story_id, await api.create_interaction(story_id, **ORDER)


async def ask(api: Api, story_id: str, query: str, **fields: Any) -> dict[str, Any]:
    body = {"sessionId": "s", "storyId": story_id, "query": query, **fields}
    result: dict[str, Any] = (await api.ok("POST", "/query", body))["result"]
    return result


async def test_the_variants_read_back_as_written(api: Api) -> None:
    story_id, order_id = await german_pizza(api)
    assert (await api.story(story_id))["settings"]["languages"] == ["de", "fr"]
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{order_id}")
    assert stored["translations"] == ORDER["translations"]
    entities = await api.ok("GET", "/entities")
    assert entities[0]["translations"] == SIZE["translations"]


async def test_a_german_user_is_answered_in_german_and_others_as_before(api: Api) -> None:
    story_id, _ = await german_pizza(api)
    german = await ask(api, story_id, "Ich möchte eine große Pizza")
    assert german["interaction"]["name"] == "Order"
    assert (german["language"], german["answeredIn"]) == ("de", "de")
    assert german["fulfillment"][0]["message"] == "Eine large Pizza kommt."
    assert german["fulfillment"][1]["messages"][0]["title"] == "Noch etwas?"
    assert german["parameters"]["default_language"] == "de"

    english = await ask(api, story_id, "I want a big pizza", sessionId="t")
    assert (english["language"], english["answeredIn"]) == ("en", "en")
    assert english["fulfillment"][0]["message"] == "One large pizza coming."

    french = await ask(
        api,
        story_id,
        "I would like to order a pizza",
        sessionId="u",
        parameters={"default_language": "fr"},
    )
    assert (french["language"], french["answeredIn"]) == ("fr", "en")
    assert french["fulfillment"][0]["message"] == "Which size?"


async def test_a_story_without_languages_answers_as_a_spec_client_expects(api: Api) -> None:
    story_id = await api.create_story()
    interaction_id = await api.create_interaction(
        story_id, name="Hours", userSays=["when are you open"]
    )
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert "translations" not in stored
    result = await ask(api, story_id, "when are you open", parameters={"default_language": "de"})
    assert "language" not in result and "answeredIn" not in result


async def test_the_export_carries_the_variants_and_imports_unchanged(api: Api) -> None:
    story_id, _ = await german_pizza(api)
    exported = await api.ok("GET", f"/stories/{story_id}/export")
    order = next(i for i in exported["interactions"] if i["name"] == "Order")
    assert order["translations"] == ORDER["translations"]
    assert exported["entities"][0]["translations"] == SIZE["translations"]
    reply = await api.call("POST", "/stories/import", exported)
    assert reply.status == 200, reply.body
    assert await api.ok("GET", f"/stories/{reply.body['id']}/export") == exported


async def test_bad_languages_and_prompts_are_refused_and_nothing_is_stored(api: Api) -> None:
    story_id = await api.create_story()
    for settings in ({"languages": ["xx"]}, {"languages": ["de", "german"]}):
        reply = await api.put(
            f"/stories/{story_id}", {"name": "Pizza", "description": "", "settings": settings}
        )
        assert reply.error == (400, "validation_error"), settings
    assert (await api.story(story_id))["settings"]["languages"] == []

    path = f"/stories/{story_id}/interactions"
    for translations in (
        {"klingon": {"userSays": ["hi"]}},
        {"de": {"parameters": [{"alias": "size", "prompts": ["Größe?"]}]}},
        {"de": {"userSays": [""]}},
    ):
        reply = await api.post(
            path, {"name": "Order", "userSays": ["a pizza"], "translations": translations}
        )
        assert reply.error == (400, "validation_error"), (translations, reply.body)
    assert len(await api.ok("GET", path)) == 2


def said(text: str) -> dict[str, Any]:
    return {"data": [{"text": text}], "isTemplate": False}


def english_and_french_agent() -> bytes:
    """An agent of number-genie's shape: English, with French as a supported language."""
    guess = {
        "id": "id-guess",
        "name": "Guess",
        "responses": [
            {
                "messages": [
                    {"type": 0, "lang": "en", "speech": "Pick a number from 1 to 100."},
                    {"type": 0, "lang": "fr", "speech": "Choisissez un nombre de 1 à 100."},
                ]
            }
        ],
    }
    files = {
        "agent.json": {"language": "en", "supportedLanguages": ["fr"], "description": ""},
        "intents/Guess.json": guess,
        "intents/Guess_usersays_en.json": [said("let's play a guessing game")],
        "intents/Guess_usersays_fr.json": [said("jouons à deviner un nombre")],
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, content in files.items():
            archive.writestr(path, json.dumps(content))
    return buffer.getvalue()


async def test_a_dialogflow_agent_of_two_languages_answers_french_in_french(api: Api) -> None:
    reply = await api.send_raw("/stories/import", english_and_french_agent(), "application/zip")
    assert reply.status == 200, reply.body
    assert reply.body["report"]["unmapped"] == []
    story_id = reply.body["id"]
    assert (await api.story(story_id))["settings"]["languages"] == ["fr"]
    french = await ask(api, story_id, "jouons à deviner un nombre")
    assert french["interaction"]["name"] == "Guess"
    assert (french["language"], french["answeredIn"]) == ("fr", "fr")
    assert french["fulfillment"][0]["message"] == "Choisissez un nombre de 1 à 100."
    english = await ask(api, story_id, "let's play a guessing game", sessionId="en")
    assert english["fulfillment"][0]["message"] == "Pick a number from 1 to 100."
