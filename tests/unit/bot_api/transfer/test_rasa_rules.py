"""The Rasa importer, one mapping rule at a time on a small project, each document
checked against Parley's rules (fields, rule 2, structure, entities)."""

from bot_api.transfer.rasa import translate
from support.rasa_projects import MOOD_DOMAIN, MOOD_NLU, by_name, checked, kinds, project, replies


def test_an_answer_after_a_question_that_differs_is_a_follow_up_without_phrases() -> None:
    stories = """\
- story: sad
  steps:
  - intent: greet
  - action: utter_greet
  - intent: mood_unhappy
  - action: utter_cheer_up
  - action: utter_did_that_help
  - intent: affirm
  - action: utter_happy
  - intent: deny
  - action: utter_goodbye
- story: sad, otherwise
  steps:
  - intent: mood_unhappy
  - action: utter_cheer_up
  - action: utter_did_that_help
  - intent: affirm
  - action: utter_greet
  - intent: ask_weather
  - action: utter_ok
- story: affirm alone
  steps:
  - intent: affirm
  - action: utter_ok
- story: affirm alone again
  steps:
  - intent: affirm
  - action: utter_ok
"""
    translated = translate(project(MOOD_NLU, MOOD_DOMAIN, stories=stories))
    document = checked(translated)
    interactions = by_name(document)
    assert interactions["affirm"]["responses"] == [{"type": "text", "messages": ["OK."]}]
    follow_up = interactions["mood_unhappy.affirm"]
    assert (follow_up["name"], follow_up["action"], follow_up["root"]) == (
        "affirm",
        interactions["affirm"]["action"],
        False,
    )
    assert follow_up["userSays"] == []
    assert follow_up["responses"] == [
        {"type": "text", "messages": ["Great, carry on!", "Wonderful!"]}
    ]
    assert interactions["mood_unhappy"]["contextOut"] == ["mood_unhappy.affirm"]
    assert (
        interactions["greet"]["contextOut"]
        == interactions["greet"]["references"]
        == ["mood_unhappy"]
    )
    assert follow_up["contextOut"] == []  # "Great, carry on!" asks nothing
    assert interactions["deny"]["responses"] == [{"type": "text", "messages": ["Bye {{name}}"]}]
    assert [i["key"] for i in document["interactions"]] == [
        "greet", "mood_unhappy", "mood_unhappy.affirm", "affirm", "deny",
    ]  # fmt: skip
    assert [(u.place, u.element) for u in translated.unmapped] == [
        ("data/stories.yml: stories[1].steps[3]", "answer to 'affirm' after utter_did_that_help"),
        ("data/stories.yml: stories[1].steps[5]", "intent 'ask_weather'"),
    ]
    assert replies(document, "yes") == [("affirm", "OK.")]
    assert replies(document, "I am sad", "yes") == [
        ("mood_unhappy", "Here is something to cheer you up:"),
        ("affirm", "Great, carry on!"),
    ]


def test_an_intent_in_many_stories_is_one_interaction_and_question_chains_stay_short() -> None:
    """carbon-bot's shape: `thank` after every kind of turn, and "yes" answered one way
    after each of two chained questions and another way alone."""
    nlu = (
        MOOD_NLU
        + "- intent: thank\n  examples: |\n    - thanks\n    - thank you\n"
        + "- intent: offer\n  examples: |\n    - offsets\n"
    )
    domain = """\
responses:
  utter_offer:
  - text: Would you like to buy offsets?
  utter_estimate:
  - text: I can estimate your flight, sound good?
  utter_which:
  - text: Which flight?
  utter_ok:
  - text: OK.
  utter_welcome:
  - text: You are welcome.
  utter_bye:
  - text: Bye.
"""
    turns = [
        ("offer", "utter_offer"),
        ("affirm", "utter_estimate"),
        ("affirm", "utter_which"),
        ("thank", "utter_welcome"),
        ("affirm", "utter_ok"),
        ("thank", "utter_welcome"),
        ("deny", "utter_bye"),
    ]
    steps = "".join(f"  - intent: {i}\n  - action: {a}\n" for i, a in turns)
    stories = "".join(f"- story: s{n}\n  steps:\n{steps}" for n in range(12))
    stories += "- story: alone\n  steps:\n  - intent: affirm\n  - action: utter_ok\n" * 20
    translated = translate(project(nlu, domain, stories=stories))
    document = checked(translated)
    interactions = by_name(document)
    assert list(interactions) == [
        "greet", "mood_unhappy", "affirm", "deny", "thank", "offer",
        "offer.affirm", "offer.affirm.affirm",
    ]  # fmt: skip
    phrases = [p for i in document["interactions"] for p in i["userSays"]]
    assert len(phrases) == len(set(phrases)) == 8  # each example once
    assert interactions["offer.affirm"]["contextOut"] == ["offer.affirm.affirm"]
    assert replies(document, "offsets", "yes", "yes", "thanks") == [
        ("offer", "Would you like to buy offsets?"),
        ("affirm", "I can estimate your flight, sound good?"),
        ("affirm", "Which flight?"),
        ("thank", "You are welcome."),
    ]
    assert replies(document, "thank you", "yes") == [
        ("thank", "You are welcome."),
        ("affirm", "OK."),
    ]


def test_a_rule_answer_wins_over_the_stories() -> None:
    rules = "- rule: ok\n  steps:\n  - intent: affirm\n  - action: utter_ok\n"
    stories = "".join(
        f"- story: s{n}\n  steps:\n  - intent: affirm\n  - action: utter_happy\n" for n in range(3)
    )
    interactions = by_name(checked(translate(project(MOOD_NLU, MOOD_DOMAIN, rules, stories))))
    assert interactions["affirm"]["responses"] == [{"type": "text", "messages": ["OK."]}]


def test_or_steps_answer_each_intent_and_checkpoints_break_the_chain() -> None:
    stories = """\
- story: either
  steps:
  - or:
    - intent: affirm
    - intent: deny
  - action: utter_ok
  - checkpoint: later
  - intent: greet
  - action: utter_greet
"""
    translated = translate(project(MOOD_NLU, MOOD_DOMAIN, stories=stories))
    interactions = by_name(checked(translated))
    assert interactions["affirm"]["responses"] == interactions["deny"]["responses"]
    assert interactions["affirm"]["contextOut"] == interactions["deny"]["contextOut"] == []
    assert (
        kinds(translated) == ["checkpoint 'later'", "answer to 'mood_unhappy'"] + ["response"] * 4
    )


def test_slot_and_entity_conditions_and_custom_actions_are_reported() -> None:
    stories = """\
- story: conditions
  steps:
  - intent: greet
    entities:
    - name: Ann
  - slot_was_set:
    - name: Ann
  - action: action_hello
"""
    rules = """\
- rule: only in a form
  condition:
  - active_loop: some_form
  steps:
  - intent: deny
  - action: utter_ok
"""
    translated = translate(project(MOOD_NLU, MOOD_DOMAIN, rules, stories))
    checked(translated)
    assert [(u.place, u.element) for u in translated.unmapped][:4] == [
        ("data/rules.yml: rules[0]", "conditional rule 'only in a form'"),
        ("data/stories.yml: stories[0].steps[0]", "entities of intent 'greet'"),
        ("data/stories.yml: stories[0].steps[1]", "slot_was_set"),
        ("data/stories.yml: stories[0].steps[2]", "custom action 'action_hello'"),
    ]


def test_annotations_become_slots_and_synonyms_lookups_entities() -> None:
    nlu = """\
- intent: order
  examples: |
    - a [large](size) pizza
    - a [big](size:large) one
    - from [Berlin]{"entity": "city", "role": "from"} to [Paris]{"entity": "city", "role": "to"}
    - [two]{"entity": "size", "value": "small", "group": "1"} please
- synonym: large
  examples: |
    - huge
- synonym: nowhere
  examples: |
    - void
- lookup: city
  examples: |
    - Rome
- regex: zip
  examples: |
    - \\d{5}
"""
    translated = translate(project(nlu))
    document = checked(translated)
    order = by_name(document)["order"]
    assert order["userSays"] == [
        "a {{size:size}} pizza",
        "a {{size:size}} one",
        "from {{city:from}} to {{city:to}}",
        "{{size:size}} please",
    ]
    assert order["parameters"] == [
        {"alias": "size", "entity": "size", "prompts": []},
        {"alias": "from", "entity": "city", "prompts": []},
        {"alias": "to", "entity": "city", "prompts": []},
    ]
    entities = {e["name"]: e["entries"] for e in document["entities"]}
    assert entities["size"] == [
        {"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}, {"value": "huge"}]},
        {"value": "small", "synonyms": [{"value": "small"}, {"value": "two"}]},
    ]
    assert [e["value"] for e in entities["city"]] == ["Berlin", "Paris", "Rome"]
    assert kinds(translated) == [
        "group of 'size'",
        "regex 'zip'",
        "synonym 'nowhere'",
        "answer to 'order'",
    ]


def test_duckling_entities_are_built_in_ones() -> None:
    config = (
        "language: de\npipeline:\n- name: DucklingEntityExtractor\n  dimensions: [number, email]\n"
    )
    nlu = "- intent: count\n  examples: |\n    - [3](number) Kinder\n"
    document = checked(translate(project(nlu, config=config)))
    assert document["interactions"][0]["userSays"] == ["{{sys.number:number}} Kinder"]
    assert document["entities"] == []
    assert document["settings"]["language"] == "german"


def test_buttons_become_a_button_template_or_quick_replies() -> None:
    domain = """\
responses:
  utter_ask:
  - text: Did that help?
    buttons:
    - {title: "Yes", payload: /affirm}
    - {title: "No, not at all really", payload: /deny}
    - {title: Low, payload: '/inform{"priority": "low"}'}
  utter_pick:
  - text: Pick one
    buttons: [{title: a, payload: a}, {title: b, payload: b}, {title: c}, {title: d}]
  utter_only:
  - text: only in slack
    channel: slack
  - text: only for friends
    condition: [{type: slot, name: friend, value: true}]
  - custom: {blocks: []}
"""
    rules = "".join(
        f"- rule: r{n}\n  steps:\n  - intent: {intent}\n  - action: {action}\n"
        for n, (intent, action) in enumerate(
            [("greet", "utter_ask"), ("affirm", "utter_pick"), ("deny", "utter_only")]
        )
    )
    translated = translate(project(MOOD_NLU, domain, rules))
    interactions = by_name(checked(translated))
    assert interactions["greet"]["responses"] == [
        {
            "type": "buttonTemplate",
            "title": "Did that help?",
            "buttons": [
                {"title": "Yes", "goto": "affirm"},
                {"title": "No, not at all reall", "goto": "deny"},
                {"title": "Low", "postback": "Low"},
            ],
        }
    ]
    assert interactions["affirm"]["responses"] == [
        {"type": "quickReply", "title": "Pick one", "replies": ["a", "b", "c", "d"]}
    ]
    assert interactions["deny"]["responses"] == []
    assert kinds(translated) == [
        "button titles",
        "answer to 'mood_unhappy'",
        "channel variant",
        "condition variant",
        "custom",
    ]


def test_retrieval_intents_are_one_interaction_each() -> None:
    nlu = """\
- intent: faq/ask_name
  examples: |
    - what is your name
- intent: faq/ask_age
  examples: |
    - how old are you
"""
    domain = """\
intents: [faq]
responses:
  utter_faq/ask_name:
  - text: I am Parley.
  utter_faq/ask_age:
  - text: Young.
"""
    rules = "- rule: faq\n  steps:\n  - intent: faq\n  - action: utter_faq\n"
    translated = translate(project(nlu, domain, rules))
    interactions = by_name(checked(translated))
    assert {k: (i["name"], i["responses"][0]["messages"]) for k, i in interactions.items()} == {
        "faq-ask_name": ("faq/ask_name", ["I am Parley."]),
        "faq-ask_age": ("faq/ask_age", ["Young."]),
    }
    assert translated.unmapped == ()


def test_a_conversation_start_rule_makes_the_welcome_and_default_fallback_the_fallback() -> None:
    rules = """\
- rule: start
  conversation_start: true
  steps:
  - intent: mood_unhappy
  - action: utter_cheer_up
- rule: fallback
  steps:
  - intent: nlu_fallback
  - action: action_default_fallback
"""
    domain = MOOD_DOMAIN + "  utter_default:\n  - text: Sorry?\n"
    translated = translate(project(MOOD_NLU, domain, rules))
    interactions = by_name(checked(translated))
    assert interactions["mood_unhappy"]["type"] == "welcome"
    assert interactions["greet"]["type"] == "standard"
    assert interactions["nlu_fallback"]["type"] == "fallback"
    assert interactions["nlu_fallback"]["responses"] == [{"type": "text", "messages": ["Sorry?"]}]
    assert not any("action_default_fallback" in element for element in kinds(translated))


def test_rasa_2_forms_in_a_domain_folder() -> None:
    files = project(
        "- intent: book\n  examples: |\n    - book a table\n"
        "- intent: inform\n  examples: |\n    - for [4](guests)\n",
        rules="- rule: b\n  steps:\n  - intent: book\n  - action: booking_form\n"
        "  - active_loop: booking_form\n",
    )
    del files["domain.yml"]
    files["domain/forms.yml"] = (
        b"forms:\n  booking_form:\n"
        b"    guests:\n    - type: from_entity\n      entity: guests\n"
        b"    note:\n    - type: from_intent\n      intent: affirm\n"
    )
    files["domain/responses.yml"] = (
        b"responses:\n  utter_ask_booking_form_guests:\n  - text: How many?\n"
    )
    translated = translate(files)
    book = by_name(checked(translated))["book"]
    assert book["parameters"] == [{"alias": "guests", "entity": "guests", "prompts": ["How many?"]}]
    assert "slot 'note' (from_intent)" in kinds(translated)


def test_yes_and_no_stay_text_as_in_yaml_1_2() -> None:
    domain = "responses:\n  utter_yes:\n  - text: yes\n  - text: No\n"
    rules = "- rule: y\n  steps:\n  - intent: affirm\n  - action: utter_yes\n"
    affirm = by_name(checked(translate(project(MOOD_NLU, domain, rules))))["affirm"]
    assert affirm["responses"] == [{"type": "text", "messages": ["yes", "No"]}]


def test_more_than_99_examples_keep_the_first_99() -> None:
    examples = "".join(f"    - phrase {n}\n" for n in range(120))
    translated = translate(project(f"- intent: many\n  examples: |\n{examples}"))
    many = checked(translated)["interactions"][0]
    assert many["userSays"][-1] == "phrase 98" and len(many["userSays"]) == 99
    assert "21 examples of 'many'" in kinds(translated)


def test_an_unknown_language_is_reported_and_english() -> None:
    translated = translate(project(MOOD_NLU, config="language: xx\n"))
    assert translated.document["settings"]["language"] == "english"
    assert "language 'xx'" in kinds(translated)


def test_rasa_1_templates_are_responses_and_forms_listed_by_name_ask_nothing() -> None:
    domain = """\
forms:
- booking_form
templates:
  utter_ok:
  - text: OK.
"""
    rules = """\
- rule: ok
  steps:
  - intent: affirm
  - action: utter_ok
- rule: book
  steps:
  - intent: greet
  - action: booking_form
  - active_loop: booking_form
"""
    translated = translate(project(MOOD_NLU, domain, rules))
    interactions = by_name(checked(translated))
    assert interactions["affirm"]["responses"] == [{"type": "text", "messages": ["OK."]}]
    assert interactions["greet"]["parameters"] == []
    assert "form 'booking_form'" in kinds(translated)


def test_a_retrieval_intent_after_a_question_adds_no_reference_per_sub_intent() -> None:
    nlu = MOOD_NLU + (
        "- intent: faq/ask_name\n  examples: |\n    - what is your name\n"
        "- intent: faq/ask_age\n  examples: |\n    - how old are you\n"
    )
    domain = MOOD_DOMAIN + (
        "  utter_faq/ask_name:\n  - text: Parley.\n  utter_faq/ask_age:\n  - text: Young.\n"
    )
    stories = """\
- story: asked
  steps:
  - intent: greet
  - action: utter_greet
  - intent: faq
  - action: utter_faq
  - intent: greet
  - action: utter_greet
  - intent: mood_unhappy
  - action: utter_cheer_up
"""
    interactions = by_name(checked(translate(project(nlu, domain, stories=stories))))
    assert interactions["greet"]["contextOut"] == ["mood_unhappy"]
    assert interactions["faq-ask_name"]["responses"] == [{"type": "text", "messages": ["Parley."]}]
