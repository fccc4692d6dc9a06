"""The Dialogflow ES translator, one mapping rule at a time on a small hand-made agent,
and uploads that are no agent."""

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest

from bot_api.transfer.dialogflow import translate
from bot_api.transfer.report import TranslationError
from support.dialogflow_agents import by_name, checked, elements


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
        supportedLanguages=["en", "tlh"],
        googleAssistant={"project": "pizza-project"},
    )
    translated = translate({f"bot/{path}": content for path, content in files.items()})
    document = checked(translated)
    assert (document["name"], document["description"]) == ("pizza-project", "Orders pizza")
    assert document["settings"] == {"language": "portuguese", "languages": ["en"]}
    assert elements(translated) == [
        ("agent.json: defaultTimezone", "timezone 'Mars/Olympus'"),
        ("agent.json: supportedLanguages", "language 'tlh'"),
    ]
    assert translate(agent()).document["name"] == "Dialogflow agent"


def test_each_supported_language_brings_its_phrases_messages_prompts_and_entries() -> None:
    """number-genie's shape: an English agent that also speaks French."""
    guess = intent(
        "Guess",
        parameters=[
            {
                "name": "number",
                "dataType": "@sys.number",
                "value": "$number",
                "required": True,
                "prompts": [
                    {"lang": "en", "value": "Which number?"},
                    {"lang": "fr", "value": "Quel nombre ?"},
                ],
            }
        ],
        messages=[
            {"type": 0, "lang": "en", "speech": "Let's see."},
            {"type": 0, "lang": "fr", "speech": "Voyons."},
        ],
    )
    hint = intent("Hint", messages=[{"type": 0, "speech": "Higher or lower."}])
    files = agent(
        guess,
        hint,
        phrases={
            "Guess": [said("is it ", ("7", "@sys.number", "number"))],
            "Hint": [said("an ", ("easy", "@level", "level"), " hint")],
        },
        entities={"level": ({}, [{"value": "easy", "synonyms": ["easy"]}])},
        supportedLanguages=["fr"],
    )
    files["intents/Guess_usersays_fr.json"] = json.dumps(
        [said("est-ce ", ("7", "@sys.number", "number"))]
    ).encode()
    files["intents/Hint_usersays_fr.json"] = json.dumps([said("un indice")]).encode()
    files["entities/level_entries_fr.json"] = json.dumps(
        [{"value": "easy", "synonyms": ["facile"]}]
    ).encode()
    translated = translate(files)
    document = checked(translated)
    assert document["settings"]["languages"] == ["fr"]
    guessed, hinted = document["interactions"][0], document["interactions"][1]
    assert guessed["translations"] == {
        "fr": {
            "userSays": ["est-ce {{sys.number:number}}"],
            "responses": [{"type": "text", "messages": ["Voyons."]}],
            "parameters": [{"alias": "number", "prompts": ["Quel nombre ?"]}],
        }
    }
    assert hinted["translations"] == {"fr": {"userSays": ["un indice"]}}
    assert hinted["parameters"] == [{"alias": "level", "entity": "level", "prompts": []}]
    assert document["entities"][0]["translations"] == {
        "fr": [{"value": "easy", "synonyms": [{"value": "easy"}, {"value": "facile"}]}]
    }
    assert elements(translated) == []


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
