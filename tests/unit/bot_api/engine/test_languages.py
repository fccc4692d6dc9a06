"""A story's language: how its phrases are stemmed, and whether the semantic stage runs."""

from dataclasses import replace

from bot_api.engine.conversation import respond
from bot_api.engine.matching import MatchIndex
from bot_api.engine.semantic import PhraseVectors, vector_key
from bot_api.engine.turn import SessionState, Turn
from support.encoders import ConceptEncoder
from support.stories import interaction, story


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
