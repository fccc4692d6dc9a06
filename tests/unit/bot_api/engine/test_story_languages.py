"""A story in several languages: each user read and answered in their own
(docs/languages.md)."""

from dataclasses import replace
from typing import Any

import pytest

from bot_api.domain.entities import Entity, Entry
from bot_api.domain.errors import Invalid
from bot_api.domain.interactions import Translation, prepare
from bot_api.domain.responses import Text
from bot_api.engine.conversation import respond
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import Outcome, SessionState, Turn
from support import languages
from support.stories import interaction, story


def pizza(**settings: Any) -> CompiledStory:
    order = interaction(
        "order",
        "I want a {{size:size}} pizza",
        "I would like to order a pizza",
        parameters=[{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
        responses=[{"type": "text", "messages": ["One {{size}} pizza coming."]}],
        translations={
            "de": {
                "userSays": [
                    "Ich möchte eine {{size:size}} Pizza",
                    "Ich will eine Pizza bestellen",
                ],
                "responses": [{"type": "text", "messages": ["Eine {{size}} Pizza kommt."]}],
                "parameters": [{"alias": "size", "prompts": ["Welche Größe?"]}],
            },
            "fr": {"userSays": ["Je voudrais commander une pizza"]},
        },
    )
    hours = interaction(
        "hours",
        *languages.HOURS["userSays"],
        responses=languages.HOURS["responses"],
        translations=languages.HOURS["translations"],
    )
    model = story(order, hours, languages=("de", "fr"), **settings)
    size = Entity(
        "size",
        (Entry("large", ("large", "big")), Entry("small", ("small",))),
        {"de": (Entry("large", ("groß", "große")), Entry("small", ("klein", "kleine")))},
    )
    return model.edited(entities=[size])


def say(
    model: CompiledStory, state: SessionState, query: str, **turn: Any
) -> tuple[SessionState, Outcome]:
    return respond(model, state, Turn(query=query, **turn), choose=lambda options: options[0])


def texts(outcome: Outcome) -> list[str]:
    return [item.message for item in outcome.fulfillment if isinstance(item, Text)]


def test_a_german_message_is_read_in_german_and_answered_in_german() -> None:
    _, outcome = say(pizza(), SessionState(), "wann habt ihr geöffnet")
    assert outcome.interaction is not None and outcome.interaction.id == "hours"
    assert texts(outcome) == ["9 bis 17 Uhr."]
    assert (outcome.language, outcome.answered_in) == ("de", "de")
    assert outcome.parameters["default_language"] == "de"


def test_the_german_entries_fill_a_parameter_and_the_german_prompt_asks() -> None:
    model = pizza()
    _, filled = say(
        model, SessionState(), "Ich möchte eine große Pizza", parameters={"default_language": "de"}
    )
    assert filled.parameters["size"] == "large"
    assert texts(filled) == ["Eine large Pizza kommt."]

    state, asked = say(
        model,
        SessionState(),
        "Ich will eine Pizza bestellen",
        parameters={"default_language": "de"},
    )
    assert asked.incomplete and texts(asked) == ["Welche Größe?"]
    assert asked.answered_in == "de"
    _, answered = say(model, state, "kleine")
    assert answered.parameters["size"] == "small"
    assert (answered.language, answered.answered_in) == ("de", "de")


def test_a_language_without_a_response_variant_answers_in_the_default() -> None:
    _, outcome = say(
        pizza(),
        SessionState(),
        "Je voudrais commander une pizza",
        parameters={"default_language": "fr"},
    )
    assert outcome.interaction is not None and outcome.interaction.id == "order"
    assert outcome.language == "fr"
    assert outcome.answered_in == "en"
    assert texts(outcome) == ["Which size?"]


def test_the_turn_s_language_comes_before_the_session_s_and_that_before_detection() -> None:
    model = pizza()
    state, first = say(
        model, SessionState(), "when are you open", parameters={"default_language": "de"}
    )
    assert first.language == "de"
    _, second = say(model, state, "wann habt ihr geöffnet")
    assert second.language == "de" and texts(second) == ["9 bis 17 Uhr."]
    _, switched = say(model, state, "when are you open", parameters={"default_language": "en"})
    assert (switched.language, texts(switched)) == ("en", ["9 to 5."])


def test_a_language_the_story_does_not_speak_is_read_and_answered_in_its_default() -> None:
    _, outcome = say(
        pizza(), SessionState(), "when are you open", parameters={"default_language": "es"}
    )
    assert (outcome.language, outcome.answered_in) == ("en", "en")
    assert outcome.parameters["default_language"] == "es"


def test_a_story_of_one_language_notes_no_language_and_answers_as_before() -> None:
    model = story(
        interaction(
            "hours", "when are you open", responses=[{"type": "text", "messages": ["9 to 5."]}]
        )
    )
    _, outcome = say(model, SessionState(), "wann habt ihr geöffnet")
    assert "default_language" not in outcome.parameters
    assert (outcome.language, outcome.answered_in) == ("", "")


def test_an_edit_of_one_interaction_reaches_its_variants_and_leaves_the_rest_shared() -> None:
    model = pizza()
    edited_hours = interaction(
        "hours",
        "when are you open",
        responses=[{"type": "text", "messages": ["9 to 5."]}],
        translations={"de": {"userSays": ["Öffnungszeiten bitte"]}},
    )
    edited = model.edited(interactions=[edited_hours])
    assert edited.variants["fr"].entities is model.variants["fr"].entities
    _, outcome = say(
        edited, SessionState(), "Öffnungszeiten bitte", parameters={"default_language": "de"}
    )
    assert outcome.interaction is not None and outcome.interaction.id == "hours"
    assert texts(outcome) == ["9 to 5."] and outcome.answered_in == "en"
    dropped = edited.edited(settings=replace(edited.settings, languages=("fr",)))
    assert set(dropped.variants) == {"fr"}


def test_a_prompt_for_a_parameter_the_interaction_lacks_is_refused() -> None:
    order = interaction("order", "a pizza")
    with pytest.raises(Invalid) as refused:
        prepare(replace(order, translations={"de": Translation(prompts={"size": ("Größe?",)})}))
    assert refused.value.path == ("translations", "de", "parameters")


def test_a_story_of_several_languages_is_read_for_meaning_in_all_their_phrases() -> None:
    model = pizza()
    assert model.phrase_texts(["order"])["order"] == [
        "i want a large pizza",
        "i would like to order a pizza",
        "ich mochte eine large pizza",
        "ich will eine pizza bestellen",
        "je voudrais commander une pizza",
    ]
    one_language = model.edited(settings=replace(model.settings, languages=()))
    assert one_language.phrase_texts(["order"])["order"] == [
        "i want a large pizza",
        "i would like to order a pizza",
    ]
