"""The Dialogflow ES translator on the three sample agents, as folders and as ZIPs."""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bot_api.domain.interactions import prepare
from bot_api.engine.conversation import respond
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import ActiveContext, SessionState, Turn
from bot_api.transfer.archive import read_archive
from bot_api.transfer.dialogflow import translate
from bot_api.transfer.report import Translated
from bot_api.transfer.schemas import checked_upload
from support.dialogflow_agents import by_name, checked, elements

SAMPLES = Path(__file__).resolve().parents[4] / ".." / "shared" / "samples" / "dialogflow"


def compiled(document: Mapping[str, Any]) -> tuple[CompiledStory, Mapping[str, str]]:
    """The story the engine would answer with, had the document been imported, and the
    key of each of its interactions by id."""
    upload = checked_upload("dialogflow", Translated(dict(document), ()))
    story = CompiledStory.compile(
        "story",
        upload.settings,
        upload.structure,
        [prepare(i) for i in upload.interactions.values()],
        upload.entities,
    )
    return story, upload.keys


def sample(name: str) -> Translated:
    """The sample read as a folder upload: its files with the folder around the agent."""
    folder = SAMPLES / name
    return translate(
        {
            str(path.relative_to(folder)): path.read_bytes()
            for path in folder.rglob("*")
            if path.is_file() and path.suffix == ".json"
        }
    )


@pytest.mark.parametrize(
    ("name", "archive"),
    [("temperature-converter", "dialogflow-agent.zip"), ("bike-shop", "BikeShopAgent.zip")],
)
def test_a_zip_gives_the_document_its_folder_gives(name: str, archive: str) -> None:
    zipped = translate(read_archive((SAMPLES / name / archive).read_bytes()))
    assert zipped == sample(name)


def test_temperature_converter() -> None:
    translated = sample("temperature-converter")
    document = checked(translated)
    assert document["name"] == "libsample-advanced"
    assert document["settings"] == {"language": "english", "timezone": "America/Los_Angeles"}
    assert [(i["name"], i["type"], i["key"]) for i in document["interactions"]] == [
        ("Default Welcome Intent", "welcome", "default-welcome-intent"),
        ("Cancel", "standard", "cancel"),
        ("Convert Fahrenheit and Celsius", "standard", "convert-fahrenheit-and-celsius"),
        ("Convert Rankine and Kelvin", "standard", "convert-rankine-and-kelvin"),
        ("Default Fallback Intent", "fallback", "default-fallback-intent"),
    ]
    interactions = by_name(document)
    convert = interactions["Convert Fahrenheit and Celsius"]
    assert convert["userSays"] == [
        "{{sys.number:temperature}}°",
        "{{sys.number:temperature}} degrees",
        "{{sys.number:temperature}}",
        "How about {{sys.number:temperature}} degrees?",
        "{{sys.number:temperature}}° {{unit:unit}}",
        "{{sys.number:temperature}} degrees {{unit:unit}}",
    ]
    assert convert["parameters"] == [
        {
            "alias": "temperature",
            "entity": "sys.number",
            "prompts": ["What temperature would you like to convert?"],
        },
        {"alias": "unit", "entity": "unit", "prompts": ["Fahrenheit or Celsius?"]},
    ]
    assert convert["action"] == "convert.common.temperature"
    assert convert["responses"] == [{"type": "text", "messages": ["Webhook Failed"]}]
    assert (convert["contextOut"], convert["references"]) == (["convert-rankine-and-kelvin"], [])
    absolute = interactions["Convert Rankine and Kelvin"]
    assert absolute["root"] is False
    assert absolute["userSays"] == ["{{absoluteTempUnit:absoluteTempUnit}}"]
    assert interactions["Default Welcome Intent"]["triggers"] == ["welcome"]
    assert interactions["Cancel"]["responses"] == [{"type": "text", "messages": ["Goodbye!"]}]
    assert document["entities"][1] == {
        "name": "unit",
        "entries": [
            {"value": "Celsius", "synonyms": [{"value": v} for v in ("Celsius", "C", "celsius")]},
            {
                "value": "Fahrenheit",
                "synonyms": [{"value": v} for v in ("Fahrenheit", "F", "fahrenheit")],
            },
        ],
    }
    assert [e["name"] for e in document["entities"]] == ["absoluteTempUnit", "unit"]
    assert sorted(elements(translated)) == [
        ("agent.json: webhook", "the agent's fulfillment"),
        ("intents/Cancel.json: responses[0].affectedContexts", "context 'temperature' cleared"),
        (
            "intents/Convert Fahrenheit and Celsius.json: responses[0].affectedContexts",
            "lifespan 1 of context 'temperature'",
        ),
        ("intents/Convert Fahrenheit and Celsius.json: webhookUsed", "webhook fulfillment"),
        ("intents/Convert Rankine and Kelvin.json: webhookUsed", "webhook fulfillment"),
        ("intents/Default Fallback Intent.json: webhookUsed", "webhook fulfillment"),
        ("intents/Default Welcome Intent.json: webhookUsed", "webhook fulfillment"),
    ]


def test_bike_shop() -> None:
    translated = sample("bike-shop")
    document = checked(translated)
    interactions = by_name(document)
    assert [i["name"] for i in document["interactions"]] == [
        "Welcome Intent",
        "Hours",
        "Make Appointment",
        "Make Appointment - custom",
        "Fallback Intent",
    ]
    welcome = interactions["Welcome Intent"]
    assert (welcome["type"], welcome["triggers"]) == ("welcome", ["welcome"])
    assert welcome["responses"] == [
        {
            "type": "text",
            "messages": ["Hi, welcome to Hogarth's bike shop.  How can I help you?"],
        }
    ]
    appointment = interactions["Make Appointment"]
    assert appointment["userSays"][:3] == [
        "Can I setup an appointment to service my bike {{sys.date:date}} {{sys.time:time}}?",
        "Can you fix my road bike?",
        "Can I schedule service for {{sys.time:time}} {{sys.date:date}}?",
    ]
    assert [(p["entity"], p["prompts"]) for p in appointment["parameters"]] == [
        ("sys.date", ["What day do you want to come in?"]),
        ("sys.time", ["What time works for you?"]),
    ]
    follow_up = interactions["Make Appointment - custom"]
    assert appointment["contextOut"] == [follow_up["key"]] and follow_up["root"] is False
    assert follow_up["userSays"] == [
        "Can you {{AppointmentType:AppointmentType}} my bike?",
        "I need a {{AppointmentType:AppointmentType}}.",
    ]
    assert follow_up["responses"][0]["messages"] == [
        "Okay, we\u2019ll schedule a {{AppointmentType}} for tomorrow, {{date}}, at {{time}}."
        "  We\u2019ll see you then."
    ]
    assert interactions["Fallback Intent"]["type"] == "fallback"
    assert document["entities"][0]["name"] == "AppointmentType"
    assert len(document["entities"][0]["entries"][1]["synonyms"]) == 6
    assert sorted(elements(translated)) == [
        ("intents/Hours.json: webhookUsed", "webhook fulfillment"),
        (
            "intents/Make Appointment - custom.json: responses[0].messages[0]",
            "context reference '#MakeAppointment-followup.date'",
        ),
        (
            "intents/Make Appointment - custom.json: responses[0].messages[0]",
            "context reference '#MakeAppointment-followup.time'",
        ),
        ("intents/Make Appointment.json: webhookUsed", "webhook fulfillment"),
        ("intents/Welcome Intent.json: responses[0].messages", "messages for google"),
    ]


def test_place_finder() -> None:
    translated = sample("place-finder")
    document = checked(translated)
    interactions = by_name(document)
    assert document["description"] == "Places search assistant"
    assert {name: len(i["userSays"]) for name, i in interactions.items()} == {
        "Default Welcome Intent": 16,  # "hi there" is there twice
        "goodbye": 5,
        "opening_hours": 9,
        "place_search": 13,  # two phrases differ only in the slots' examples
        "address": 13,
        "rating": 6,
        "thanks": 6,
        "Default Fallback Intent": 0,
    }
    search = interactions["place_search"]
    assert "Is the place open today?" in interactions["opening_hours"]["userSays"]
    assert (
        "I am looking for a {{query:query}} within {{sys.number:number}} meters from here."
        in search["userSays"]
    )
    assert search["parameters"] == [
        {
            "alias": "query",
            "entity": "query",
            "prompts": [
                "What place are you looking for?",
                "What exactly are you looking for?",
                "Are you looking for a restaurant, shop, a bank or any other specific place?",
            ],
        },
        {"alias": "number", "entity": "sys.number", "prompts": []},
    ]
    assert search["responses"] == []
    address = interactions["address"]
    assert (search["contextOut"], search["references"]) == (["address"], [])
    assert (address["root"], address["contextOut"], address["references"]) == (
        False,
        ["address"],
        ["address"],
    )
    assert address["responses"] == [{"type": "text", "messages": ["The address is {{param}}"]}]
    fallback = interactions["Default Fallback Intent"]
    assert fallback["type"] == "fallback" and len(fallback["responses"][0]["messages"]) == 12
    assert fallback["triggers"] == []
    assert sorted(elements(translated)) == [
        ("agent.json: webhook", "the agent's fulfillment"),
        ("intents/Default Fallback Intent.json: events[0]", "event 'GOOGLE_ASSISTANT_WELCOME'"),
        ("intents/address.json: responses[0].affectedContexts", "lifespan 5 of context 'address'"),
        ("intents/address.json: responses[0].messages[0]", "context reference '#address.param'"),
        (
            "intents/opening_hours.json: responses[0].messages[0]",
            "context reference '#opening_hours.param'",
        ),
        ("intents/place_search.json: responses[0].affectedContexts", "context 'opening_hours'"),
        ("intents/place_search.json: responses[0].affectedContexts", "context 'rating'"),
        (
            "intents/place_search.json: responses[0].affectedContexts",
            "lifespan 5 of context 'address'",
        ),
        (
            "intents/place_search.json: responses[0].parameters[1]",
            "required parameter 'number' without a prompt",
        ),
        ("intents/place_search.json: webhookForSlotFilling", "webhook for slot filling"),
        ("intents/place_search.json: webhookUsed", "webhook fulfillment"),
        ("intents/rating.json: responses[0].messages[0]", "context reference '#rating.param'"),
    ]


@pytest.mark.parametrize("name", ["temperature-converter", "bike-shop", "place-finder"])
def test_every_phrase_of_a_sample_is_answered_by_the_interaction_named_after_its_intent(
    name: str,
) -> None:
    """Each phrase as Dialogflow stored it, in a new conversation; an intent that needs an
    input context in the context of the interaction that owns it."""
    document = sample(name).document
    story, keys = compiled(document)
    id_of = {key: interaction_id for interaction_id, key in keys.items()}
    owners = {
        child: i["key"]
        for i in document["interactions"]
        for child in i["contextOut"]
        if child not in i["references"]
    }
    folder = next(path for path in (SAMPLES / name).iterdir() if path.is_dir())
    asked = answered = 0
    for phrases in sorted(folder.glob("intents/*_usersays_en.json")):
        definition = phrases.with_name(phrases.name.replace("_usersays_en", ""))
        intent_name = json.loads(definition.read_bytes())["name"]
        key = next(i["key"] for i in document["interactions"] if i["name"] == intent_name)
        state = SessionState((ActiveContext(id_of[owners[key]], 2),) if key in owners else ())
        for phrase in json.loads(phrases.read_bytes()):
            text = "".join(piece["text"] for piece in phrase["data"])
            _, outcome = respond(story, state, Turn(query=text), choose=lambda options: options[0])
            asked += 1
            answered += outcome.interaction is not None and outcome.interaction.id == id_of[key]
    assert (answered, asked) == (
        asked,
        {"temperature-converter": 15, "bike-shop": 13}.get(name, 70),
    )
