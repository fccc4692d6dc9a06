"""A story's language: how its phrases are stemmed, and whether the semantic stage runs."""

from dataclasses import replace

import pytest

from bot_api.domain.greetings import TEXTS
from bot_api.domain.settings import LANGUAGES
from bot_api.engine.conversation import respond
from bot_api.engine.matching import MatchIndex
from bot_api.engine.semantic import PhraseVectors, vector_key
from bot_api.engine.turn import SessionState, Turn
from support.encoders import ConceptEncoder
from support.stories import interaction, story


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_new_story_greets_back_and_speaks_its_language(language: str) -> None:
    model = story(interaction("hours", "when are you open"), language=language)
    for greeting in (*TEXTS[language].greetings, "hi", "hello", "good morning"):
        turn = Turn(query=greeting, parameters={"default_name": "Ada"}, debug=True)
        _, outcome = respond(model, SessionState(), turn)
        assert outcome.interaction is not None, (greeting, outcome.debug)
        assert outcome.interaction.kind == "welcome", (greeting, outcome.debug)
        welcome = TEXTS[language].welcome.replace("{{default_name}}", "Ada")
        assert [item.message for item in outcome.fulfillment] == [welcome]  # type: ignore[attr-defined]
    _, missed = respond(model, SessionState(), Turn(query="zzz qqq"))
    assert missed.interaction is not None and missed.interaction.kind == "fallback"
    assert missed.fulfillment[0].message in TEXTS[language].fallback  # type: ignore[attr-defined]


def test_phrases_are_stemmed_in_the_story_language() -> None:
    assert "kauf" in MatchIndex.build({}, "german").terms(["kaufen"])
    assert "kauf" not in MatchIndex.build({}, "english").terms(["kaufen"])


def test_a_language_change_restems_the_whole_index() -> None:
    english = story(interaction("buy", "wir kaufen brot"))
    german = english.edited(settings=replace(english.settings, language="german"))
    assert english.index.language == "english"
    assert german.index.language == "german"
    unknown = "zzzz"
    assert english.index.weight("kauf") == english.index.weight(unknown)
    assert german.index.weight("kauf") < german.index.weight(unknown)


def test_the_semantic_stage_runs_only_where_the_model_covers_the_language() -> None:
    encoder = ConceptEncoder()
    phrases = ["hello there", "hi friend"]
    vectors = PhraseVectors(
        encoder.model_id,
        {
            vector_key(encoder.model_id, p): v
            for p, v in zip(phrases, encoder(phrases), strict=True)
        },
    )
    for language, encoded in (("english", ["howdy"]), ("german", [])):
        base = story(interaction("greet", *phrases), language=language)
        compiled = base.edited(interactions=[base.interactions["greet"]], vectors=vectors)
        encoder.encoded.clear()
        respond(compiled, SessionState(), Turn(query="howdy"), encoder=encoder)
        assert encoder.encoded == encoded, language
