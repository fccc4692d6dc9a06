"""The Dialogflow ES translator: the three sample agents (folder and ZIP), each mapping
rule on a small agent, and uploads that are no agent."""

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bot_api.domain.entities import BUILTIN_ENTITIES
from bot_api.domain.interactions import prepare
from bot_api.engine.conversation import respond
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import ActiveContext, SessionState, Turn
from bot_api.transfer.archive import read_archive
from bot_api.transfer.dialogflow import translate
from bot_api.transfer.report import Translated, TranslationError
from bot_api.transfer.schemas import checked_upload

SAMPLES = Path(__file__).resolve().parents[4] / ".." / "shared" / "samples" / "dialogflow"


def checked(translated: Translated) -> dict[str, Any]:
    """The document, once the service's own reader took it (every field of each
    interaction and entity, keys, the tree) and every slot of a phrase is a declared
    parameter of an entity the document or the service has."""
    upload = checked_upload("dialogflow", translated)
    entities = {e.name for e in upload.entities}
    for interaction in upload.interactions.values():
        assert prepare(interaction).parameters == interaction.parameters, "a slot undeclared"
        assert {p.entity for p in interaction.parameters} <= entities | BUILTIN_ENTITIES
    json.dumps(translated.document)
    return translated.document


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


def by_name(document: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["name"]: i for i in document["interactions"]}


def elements(translated: Translated) -> list[tuple[str, str]]:
    return [(u.place, u.element) for u in translated.unmapped]


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


# Small hand-made agents, one rule each.


def intent(name: str, **fields: Any) -> dict[str, Any]:
    response = {
        key: fields.pop(key)
        for key in ("messages", "parameters", "affectedContexts", "action")
        if key in fields
    }
    return {"id": f"id-{name}", "name": name, "responses": [response], **fields}


def said(*pieces: str | tuple[str, str, str], template: bool = False) -> dict[str, Any]:
    """A phrase: plain text pieces, or (text, meta, alias) for an annotated one."""
    data = [
        {"text": p} if isinstance(p, str) else {"text": p[0], "meta": p[1], "alias": p[2]}
        for p in pieces
    ]
    return {"data": data, "isTemplate": template}


def agent(
    *intents: dict[str, Any],
    phrases: Mapping[str, list[Any]] | None = None,
    entities: Mapping[str, tuple[dict[str, Any], list[Any]]] | None = None,
    **settings: Any,
) -> dict[str, bytes]:
    files = {"agent.json": {"language": "en", "description": "", **settings}}
    files |= {f"intents/{i['name']}.json": i for i in intents}
    files |= {f"intents/{n}_usersays_en.json": p for n, p in (phrases or {}).items()}
    for name, (definition, entries) in (entities or {}).items():
        files[f"entities/{name}.json"] = {"name": name, **definition}
        files[f"entities/{name}_entries_en.json"] = entries
    return {path: json.dumps(content).encode() for path, content in files.items()}


SIZE = {"size": ({}, [{"value": "large", "synonyms": ["large", "big"]}])}


def test_phrases_join_their_pieces_and_annotated_ones_become_slots() -> None:
    files = agent(
        intent("Order"),
        phrases={
            "Order": [
                said("a ", ("big", "@size", "size"), " pizza for ", ("2", "@sys.number", "n")),
                said("a ", ("pepperoni", "@sys.ignore", ""), " pizza"),
                said("@size:size pizza, @sys.number-integer:n of them, to a@b.c", template=True),
                said("a pizza @size", template=True),
                said("   "),
                said("pizza in @sys.geo-city:city", template=True),
                said(("3", "@sys.number", "size"), " pizzas"),
                said("x" * 2049),
            ]
        },
        entities=SIZE,
    )
    translated = translate(files)
    order = checked(translated)["interactions"][0]
    assert order["userSays"] == [
        "a {{size:size}} pizza for {{sys.number:n}}",
        "a pepperoni pizza",
        "{{size:size}} pizza, {{sys.number:n}} of them, to a@b.c",
        "a pizza {{size:size}}",
        "pizza in city",
        "3 pizzas",
    ]
    assert order["parameters"] == [
        {"alias": "size", "entity": "size", "prompts": []},
        {"alias": "n", "entity": "sys.number", "prompts": []},
        {"alias": "city", "entity": "sys.any", "prompts": []},
    ]
    assert elements(translated) == [
        ("intents/Order_usersays_en.json: [5]", "entity '@sys.geo-city'"),
        ("intents/Order_usersays_en.json: [6]", "annotation @sys.number:size"),
        ("intents/Order_usersays_en.json: [7]", "phrase over 2048 characters"),
    ]


def test_a_system_entity_the_story_lacks_keeps_its_words_and_reads_the_whole_answer() -> None:
    city = {
        "name": "city",
        "dataType": "@sys.geo-city",
        "required": True,
        "prompts": [{"lang": "en", "value": "Which city?"}],
    }
    files = agent(
        intent("Weather", parameters=[city]),
        phrases={"Weather": [said("weather in ", ("Paris", "@sys.geo-city", "city"))] * 2},
    )
    translated = translate(files)
    weather = checked(translated)["interactions"][0]
    assert weather["userSays"] == ["weather in Paris"]
    assert weather["parameters"] == [
        {"alias": "city", "entity": "sys.any", "prompts": ["Which city?"]}
    ]
    assert elements(translated) == [
        ("intents/Weather.json: responses[0].parameters[0]", "entity '@sys.geo-city'")
    ]


@pytest.mark.parametrize(
    ("data_type", "entity"),
    [
        ("@sys.number-integer", "sys.number"),
        ("@sys.cardinal", "sys.number"),
        ("@sys.unit-currency", "sys.amount-of-money"),
        ("@sys.date-period", "sys.date-time"),
        ("@sys.email", "sys.email"),
        ("@sys.any", "sys.any"),
    ],
)
def test_system_entities_map_to_the_built_in_ones(data_type: str, entity: str) -> None:
    parameter = {"name": "x", "dataType": data_type}
    translated = translate(agent(intent("Ask", parameters=[parameter])))
    assert checked(translated)["interactions"][0]["parameters"][0]["entity"] == entity
    assert translated.unmapped == ()


def test_a_parameter_has_prompts_exactly_when_dialogflow_asks_for_it() -> None:
    prompts = [{"lang": "en", "value": "Size $size?"}, {"lang": "de", "value": "Größe?"}]
    parameters = [
        {"name": "size", "dataType": "@size", "required": True, "prompts": prompts},
        {"name": "kept", "dataType": "@size", "required": False, "prompts": prompts},
        {"name": "silent", "dataType": "@size", "required": True, "prompts": []},
        {"name": "many", "dataType": "@size", "isList": True, "value": "#ctx.many"},
    ]
    translated = translate(agent(intent("Order", parameters=parameters), entities=SIZE))
    order = checked(translated)["interactions"][0]
    assert [(p["alias"], p["prompts"]) for p in order["parameters"]] == [
        ("size", ["Size {{size}}?"]),
        ("kept", []),
        ("silent", []),
        ("many", []),
    ]
    assert [element for _, element in elements(translated)] == [
        "required parameter 'silent' without a prompt",
        "value '#ctx.many'",
        "isList of 'many'",
    ]


def test_response_texts_name_parameters_with_braces() -> None:
    parameters = [{"name": "size", "dataType": "@size"}]
    speech = ["A $size.original pizza, $size, $colour, $20 and #order.size"]
    files = agent(
        intent("Order", parameters=parameters, messages=[{"type": 0, "speech": speech}]),
        entities=SIZE,
    )
    translated = translate(files)
    order = checked(translated)["interactions"][0]
    assert order["responses"][0]["messages"] == [
        "A {{size}} pizza, {{size}}, $colour, $20 and {{size}}"
    ]
    assert [element for _, element in elements(translated)] == [
        "'$size.original'",
        "reference '$colour'",
        "context reference '#order.size'",
    ]


def test_dialogflow_message_types_become_blocks() -> None:
    card = {
        "type": 1,
        "title": "Pizza",
        "subtitle": "Hot",
        "imageUrl": "https://x.test/p.png",
        "buttons": [{"text": f"B{n}", "postback": f"p{n}"} for n in range(4)],
    }
    messages = [
        {"type": 0, "lang": "en", "speech": ["Hi", "", "Hello"]},
        {"type": 0, "lang": "de", "speech": "Hallo"},
        card,
        {"type": 2, "title": "Size?", "replies": ["Small", "Large"]},
        {"type": 3, "imageUrl": "https://x.test/i.png", "condition": "$size = 'big'"},
        {"type": 4, "payload": {"x": 1}},
        {"type": 2, "title": "Again?", "replies": ["Yes"]},
        {"type": 3, "imageUrl": ""},
        {"type": 0, "speech": "Bye", "platform": "facebook"},
        {"type": 0, "speech": "Ciao", "platform": "slack"},
    ]
    translated = translate(agent(intent("Order", messages=messages)))
    order = checked(translated)["interactions"][0]
    assert order["responses"] == [
        {"type": "text", "messages": ["Hi", "Hello"]},
        {
            "type": "card",
            "title": "Pizza",
            "subtitle": "Hot",
            "imageUrl": "https://x.test/p.png",
            "buttons": [{"title": f"B{n}", "postback": f"p{n}"} for n in range(3)],
        },
        {"type": "quickReply", "title": "Size?", "replies": ["Small", "Large"]},
        {"type": "image", "imageUrl": "https://x.test/i.png"},
    ]
    assert elements(translated) == [
        ("intents/Order.json: responses[0].messages", "messages for facebook, slack"),
        ("intents/Order.json: responses[0].messages[2]", "1 buttons past the 3rd"),
        ("intents/Order.json: responses[0].messages[4]", "condition"),
        ("intents/Order.json: responses[0].messages[5]", "custom payload"),
        ("intents/Order.json: responses[0].messages[6]", "a second set of quick replies"),
        ("intents/Order.json: responses[0].messages[7]", "image without a URL"),
    ]


def test_quick_replies_without_replies_leave_the_text_before_them() -> None:
    messages = [{"type": 0, "speech": "Pick one"}, {"type": 2, "title": "", "replies": [""]}]
    translated = translate(agent(intent("Pick", messages=messages)))
    responses = checked(translated)["interactions"][0]["responses"]
    assert responses == [{"type": "text", "messages": ["Pick one"]}]
    assert elements(translated) == [
        ("intents/Pick.json: responses[0].messages[1]", "quick replies without a title or replies")
    ]


def test_an_intent_with_only_google_messages_takes_them() -> None:
    messages = [
        {"type": "simple_response", "platform": "google", "textToSpeech": "Which size?"},
        {"type": "suggestion_chips", "platform": "google", "suggestions": [{"title": "Small"}]},
        {
            "type": "basic_card",
            "platform": "google",
            "title": "Pizza",
            "image": {"url": "https://x.test/p.png"},
            "buttons": [{"title": "Menu", "openUrlAction": {"url": "https://x.test/menu"}}],
        },
        {"type": "list_card", "platform": "google", "items": []},
        {"type": 0, "platform": "telegram", "speech": "Hi"},
    ]
    translated = translate(agent(intent("Order", messages=messages)))
    assert checked(translated)["interactions"][0]["responses"] == [
        {"type": "quickReply", "title": "Which size?", "replies": ["Small"]},
        {
            "type": "card",
            "title": "Pizza",
            "subtitle": "",
            "imageUrl": "https://x.test/p.png",
            "buttons": [{"title": "Menu", "postback": "https://x.test/menu"}],
        },
    ]
    assert [element for _, element in elements(translated)] == [
        "messages for telegram",
        "message of type 'list_card'",
    ]


def test_responses_are_cut_to_what_a_story_holds() -> None:
    messages = [{"type": 0, "speech": [f"v{n}" for n in range(25)]}]
    messages += [{"type": 0, "speech": f"m{n}"} for n in range(11)]
    messages += [{"type": 2, "title": "", "replies": ["a reply of many words"]}]
    translated = translate(agent(intent("Chatty", messages=messages)))
    responses = checked(translated)["interactions"][0]["responses"]
    assert len(responses) == 11 and len(responses[0]["messages"]) == 20
    assert responses[-1] == {"type": "text", "messages": ["m9"]}
    assert [element for _, element in elements(translated)] == [
        "5 variants past the 20th",
        "quick reply of 21 characters",
        "1 messages past the 11th",
    ]


def test_the_welcome_event_makes_the_welcome_and_custom_events_make_triggers() -> None:
    files = agent(
        intent("Hi", events=[{"name": "FACEBOOK_WELCOME"}, {"name": "start"}]),
        intent("Hello", events=[{"name": "WELCOME"}, {"name": "SLACK_WELCOME"}]),
        intent("Order", events=[{"name": "orderPizza"}, {"name": "actions_intent_OPTION"}]),
        intent("Reorder", events=[{"name": "ORDERPIZZA"}]),
    )
    translated = translate(files)
    interactions = by_name(checked(translated))
    assert (interactions["Hello"]["type"], interactions["Hello"]["triggers"]) == (
        "welcome",
        ["welcome"],
    )
    assert (interactions["Hi"]["type"], interactions["Hi"]["triggers"]) == ("standard", ["start"])
    assert interactions["Order"]["triggers"] == ["orderPizza"]
    assert interactions["Reorder"]["triggers"] == []
    assert elements(translated) == [
        ("intents/Hi.json: events[0]", "event 'FACEBOOK_WELCOME'"),
        ("intents/Order.json: events[1]", "event 'actions_intent_OPTION'"),
        ("intents/Reorder.json: events[0]", "event 'ORDERPIZZA'"),
    ]


def test_a_platform_welcome_event_makes_the_welcome_when_no_intent_has_welcome() -> None:
    files = agent(intent("Hi", events=[{"name": "GOOGLE_ASSISTANT_WELCOME"}]))
    assert checked(translate(files))["interactions"][0]["type"] == "welcome"


def test_one_global_fallback_is_the_fallback_and_the_others_are_reported() -> None:
    files = agent(
        intent("Lost", fallbackIntent=True),
        intent("Lost in order", fallbackIntent=True, contexts=["ordering"]),
        intent("Order", affectedContexts=[{"name": "ordering", "lifespan": 2}]),
        intent("Again lost", fallbackIntent=True),
    )
    translated = translate(files)
    interactions = by_name(checked(translated))
    assert [interactions[n]["type"] for n in ("Again lost", "Lost", "Lost in order")] == [
        "fallback",
        "standard",
        "standard",
    ]
    assert interactions["Order"]["contextOut"] == ["lost-in-order"]
    assert elements(translated) == [
        ("intents/Lost in order.json", "fallback intent bound to contexts"),
        ("intents/Lost.json", "fallback intent"),
    ]


def test_contexts_form_a_tree_and_what_does_not_fit_is_reported() -> None:
    sets = [{"name": "Sized", "lifespan": 2}]
    files = agent(
        intent("Welcome", events=[{"name": "WELCOME"}], contexts=["sized"]),
        intent("Size", affectedContexts=sets),
        intent("Resize", affectedContexts=sets, contexts=["sized"]),
        intent("Crust", contexts=["sized"]),
        intent("Orphan", contexts=["nowhere"]),
        intent("Ping", affectedContexts=[{"name": "pong", "lifespan": 2}], contexts=["ping"]),
        intent("Pong", affectedContexts=[{"name": "ping", "lifespan": 2}], contexts=["pong"]),
        intent("Follow", parentId="id-Crust", contexts=["sized"]),
    )
    translated = translate(files)
    interactions = by_name(checked(translated))
    tree = {n: (i["root"], i["contextOut"], i["references"]) for n, i in interactions.items()}
    assert tree == {
        "Welcome": (True, [], []),
        "Crust": (False, ["follow"], []),
        "Follow": (False, [], []),
        "Orphan": (True, [], []),
        "Ping": (False, ["pong"], ["pong"]),
        "Pong": (True, ["ping"], []),
        "Resize": (
            False,
            ["welcome", "crust", "follow", "resize"],
            ["welcome", "follow", "resize"],
        ),
        "Size": (True, ["welcome", "crust", "follow", "resize"], ["welcome", "crust", "follow"]),
    }
    assert [element for _, element in elements(translated)] == [
        "input contexts of the welcome",
        "input contexts nowhere",
    ]


def test_a_follow_up_of_a_missing_intent_is_a_root_and_an_intent_follows_at_most_50() -> None:
    followers = [intent(f"Topping {n:02}", contexts=["menu"]) for n in range(51)]
    files = agent(
        intent("Menu", affectedContexts=[{"name": "menu", "lifespan": 2}]),
        intent("Orphan", parentId="id-gone"),
        *followers,
    )
    translated = translate(files)
    interactions = by_name(checked(translated))
    assert interactions["Orphan"]["root"] is True
    assert len(interactions["Menu"]["contextOut"]) == 50
    assert interactions["Topping 50"]["root"] is True
    assert elements(translated) == [
        ("intents/Orphan.json: parentId", "follow-up of a missing intent"),
        ("intents/Menu.json: responses[0].affectedContexts", "followed by 'Topping 50'"),
    ]


def test_entities_keep_entries_and_synonyms_and_report_what_lists_cannot_hold() -> None:
    entities = {
        "size": ({"isEnum": True}, [{"value": "large", "synonyms": ["big"]}, {"value": "large"}]),
        "zip": ({"isRegexp": True}, [{"value": "[0-9]{5}", "synonyms": ["[0-9]{5}"]}]),
        "meal": ({}, [{"value": "@size:size @sys.number:n", "synonyms": ["@size:size"]}]),
        "unused": ({"automatedExpansion": True}, [{"value": "x", "synonyms": ["x"]}]),
    }
    parameters = [{"name": n, "dataType": f"@{n}"} for n in ("size", "zip", "meal")]
    translated = translate(agent(intent("Order", parameters=parameters), entities=entities))
    document = checked(translated)
    assert document["entities"] == [
        {
            "name": "size",
            "entries": [{"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]}],
        }
    ]
    assert [p["entity"] for p in document["interactions"][0]["parameters"]] == [
        "size",
        "sys.any",
        "sys.any",
    ]
    assert elements(translated) == [
        ("entities/meal.json", "composite entity 'meal'"),
        ("entities/size_entries_en.json: [1]", "entry 'large'"),
        ("entities/unused.json", "automatedExpansion"),
        ("entities/zip.json", "regexp entity 'zip'"),
        ("intents/Order.json: responses[0].parameters[1]", "entity '@zip'"),
        ("intents/Order.json: responses[0].parameters[2]", "entity '@meal'"),
        ("entities/unused.json", "entity 'unused'"),
    ]


def test_keys_are_made_from_names_and_unique() -> None:
    files = agent(intent("Order: Pizza!"), intent("order--pizza-"), intent("Ünïcode ok"))
    keys = [i["key"] for i in checked(translate(files))["interactions"]]
    assert keys == ["order-pizza", "order--pizza", "unicode-ok"]


def test_phrases_past_the_99th_are_reported() -> None:
    files = agent(intent("Many"), phrases={"Many": [said(f"phrase {n}") for n in range(101)]})
    translated = translate(files)
    assert len(checked(translated)["interactions"][0]["userSays"]) == 99
    assert elements(translated) == [("intents/Many_usersays_en.json", "2 phrases past the 99th")]


def test_the_agent_gives_the_story_its_name_language_and_timezone() -> None:
    files = agent(
        description="Orders pizza",
        language="pt-br",
        defaultTimezone="Mars/Olympus",
        supportedLanguages=["en"],
        googleAssistant={"project": "pizza-project"},
    )
    translated = translate({f"bot/{path}": content for path, content in files.items()})
    document = checked(translated)
    assert (document["name"], document["description"]) == ("pizza-project", "Orders pizza")
    assert document["settings"] == {"language": "portuguese"}
    assert elements(translated) == [
        ("agent.json: supportedLanguages", "language 'en'"),
        ("agent.json: defaultTimezone", "timezone 'Mars/Olympus'"),
    ]
    assert translate(agent()).document["name"] == "Dialogflow agent"


@pytest.mark.parametrize(
    ("files", "named"),
    [
        ({"intents/A.json": b"{}"}, "agent.json is missing"),
        ({"agent.json": b"{not json"}, "agent.json is not JSON"),
        ({"agent.json": b"[]"}, "agent.json holds no JSON object"),
        ({"agent.json": b'{"language": "xx"}'}, "agent.json: 'xx'"),
        ({**agent(), "package.json": b"\xff"}, "package.json is not JSON"),
        ({**agent(), "intents/A.json": b"[1]"}, "intents/A.json holds no JSON object"),
        ({**agent(), "intents/A.json": b'{"responses": "no"}'}, "intents/A.json is no"),
        ({**agent(intent("A")), "intents/A_usersays_en.json": b"{"}, "A_usersays_en.json is not"),
        ({**agent(intent("A")), "intents/A_usersays_en.json": b"[1]"}, "intents/A.json is no"),
        (
            {**agent(), "entities/e.json": b'{"name": "e"}', "entities/e_entries_en.json": b"{}"},
            "e_entries_en.json holds",
        ),
        (
            {**agent(), "entities/e.json": b'{"name": "e"}', "entities/e_entries_en.json": b"[2]"},
            "entities/e.json is no",
        ),
        ({"agent.json": b'{"language": "en", "webhook": []}'}, "agent.json is no"),
    ],
)
def test_an_upload_that_is_no_agent_is_refused_naming_the_file(
    files: dict[str, bytes], named: str
) -> None:
    with pytest.raises(TranslationError, match=re.escape(named)):
        translate(files)
