"""The semantic stage beside the lexical one, with a stand-in encoder."""

import numpy as np
import pytest

from bot_api.engine import semantic as semantic_module
from bot_api.engine.matching import MatchIndex
from bot_api.engine.ranking import confidence, rank
from bot_api.engine.scoring import SCORING, calibrated
from bot_api.engine.semantic import (
    Encoder,
    KnownVectors,
    PhraseVectors,
    SemanticIndex,
    VectorUnknown,
    phrase_text,
    vector_key,
)
from bot_api.engine.text import tokens
from support.encoders import ConceptEncoder

CALIBRATION = ConceptEncoder.calibration

PHRASES = {
    "greet": ["hello there", "hi friend"],
    "weather": ["what is the weather", "will it rain today"],
    "pizza": ["I want a large pizza", "order a pizza"],
}


def semantic(encoder: ConceptEncoder, phrases: dict[str, list[str]]) -> SemanticIndex:
    return SemanticIndex.build(
        encoder.model_id,
        {i: list(encoder([" ".join(tokens(p)) for p in ps])) for i, ps in phrases.items()},
    )


def ranked(text: str, index: SemanticIndex | None, encoder: Encoder | None) -> list:
    return rank(MatchIndex.build(PHRASES), index, encoder, [tokens(text)], lambda i: True)[0]


def test_a_message_sharing_meaning_but_no_word_matches_through_the_semantic_stage() -> None:
    encoder = ConceptEncoder()
    index = semantic(encoder, PHRASES)
    lexical_only = ranked("howdy", None, None)
    assert not lexical_only or lexical_only[0].score < 0.5
    best = ranked("howdy", index, encoder)[0]
    assert best.interaction_id == "greet"
    assert best.score >= 0.5
    assert best.semantic is not None and best.semantic > 0.5


def test_an_exact_phrase_answers_without_encoding_the_message() -> None:
    encoder = ConceptEncoder()
    index = semantic(encoder, PHRASES)
    encoder.encoded.clear()
    best = ranked("Order a pizza!", index, encoder)[0]
    assert (best.interaction_id, best.score) == ("pizza", 1.0)
    assert best.semantic is None
    assert encoder.encoded == []


def test_a_clear_lexical_winner_is_decisive_and_a_weak_one_is_not() -> None:
    encoder = ConceptEncoder()
    index = semantic(encoder, PHRASES)
    encoder.encoded.clear()
    lexical = MatchIndex.build(PHRASES).search([tokens("it will rain today")], bool)
    assert lexical[0].score >= SCORING.decisive
    ranked("it will rain today", index, encoder)
    assert encoder.encoded == []
    ranked("sunny", index, encoder)
    assert encoder.encoded == ["sunny"]


def test_an_interaction_without_vectors_yet_keeps_its_lexical_score() -> None:
    encoder = ConceptEncoder()
    without_pizza = semantic(encoder, {i: p for i, p in PHRASES.items() if i != "pizza"})
    lexical = {s.interaction_id: s for s in ranked("pizza for dinner tonight", None, None)}
    both = {s.interaction_id: s for s in ranked("pizza for dinner tonight", without_pizza, encoder)}
    assert both["pizza"].score == lexical["pizza"].score
    assert both["pizza"].semantic is None
    assert both["pizza"].lexical == lexical["pizza"].score


def test_a_message_as_close_to_another_interaction_scores_lower() -> None:
    encoder = ConceptEncoder()

    def top_score(phrases: dict[str, list[str]]) -> float:
        index = semantic(encoder, phrases)
        lexical = MatchIndex.build(phrases)
        return rank(lexical, index, encoder, [tokens("hello weather")], bool)[0][0].score

    torn = top_score({"greet": ["hello"], "weather": ["weather"]})
    alone = top_score({"greet": ["hello"], "pizza": ["pizza"]})
    assert torn < alone


def test_the_calibration_reads_a_share_of_forty_hundredths_as_one_half() -> None:
    readings = [calibrated(r, CALIBRATION.share_knee) for r in (0.0, 0.2, 0.4, 0.7, 1.0, 1.5)]
    assert readings == [0, 0.25, 0.5, 0.75, 1, 1]
    assert calibrated(0.2, CALIBRATION.blend_knee) == 0.5


def test_the_score_is_the_softmax_share_capped_by_the_blend_alone() -> None:
    # Alone: a share of 1, so the blend's own reading decides.
    assert confidence(0.6, [0.6], CALIBRATION) == calibrated(0.6, CALIBRATION.blend_knee) == 0.75
    # Two candidates 0.05 apart: the leader's share is e / (1 + e), 0.73.
    assert round(confidence(0.9, [0.9, 0.85], CALIBRATION), 3) == round(
        calibrated(0.731, CALIBRATION.share_knee), 3
    )
    # Three equal candidates: a third each, below the default confidence.
    assert confidence(0.9, [0.9, 0.9, 0.9], CALIBRATION) < 0.5
    # Alone but far from every phrase: the blend's own reading caps the score.
    assert confidence(0.1, [0.1], CALIBRATION) == calibrated(0.1, CALIBRATION.blend_knee) == 0.25
    ordered = [confidence(b, [0.3, 0.4, 0.5], CALIBRATION) for b in (0.3, 0.4, 0.5)]
    assert ordered == sorted(ordered)


def test_a_slot_is_read_as_a_value_of_its_entity_and_texts_are_named_by_model() -> None:
    assert phrase_text("A {{size:s}} pizza, {{city:to}}!", {"size": "Large"}) == (
        "a large pizza city"
    )
    assert vector_key("m1", "a pizza") != vector_key("m2", "a pizza")
    vectors = PhraseVectors("m1", {vector_key("m1", "a pizza"): ConceptEncoder()(["pizza"])[0]})
    assert len(vectors.of(["a pizza", "unknown"])) == 1


def test_the_message_s_vector_comes_back_when_it_was_encoded_and_only_then() -> None:
    encoder = ConceptEncoder()
    index = semantic(encoder, PHRASES)
    lexical = MatchIndex.build(PHRASES)
    _, vector = rank(lexical, index, encoder, [tokens("howdy")], bool)
    assert vector is not None
    assert vector.tolist() == encoder(["howdy"])[0].tolist()
    assert rank(lexical, index, encoder, [tokens("order a pizza")], bool)[1] is None
    assert rank(lexical, None, None, [tokens("howdy")], bool)[1] is None


def test_a_message_ranked_again_in_its_turn_reuses_its_vector() -> None:
    """A turn whose interaction asked for a parameter ranks the message twice (for the
    interaction, then at the root level): the model encodes it once."""
    encoder = ConceptEncoder()
    index = semantic(encoder, PHRASES)
    lexical = MatchIndex.build(PHRASES)
    first, vector = rank(lexical, index, encoder, [tokens("howdy")], bool)
    encoder.encoded.clear()

    again, same = rank(
        lexical, index, encoder, [tokens("howdy")], lambda i: i != "greet", query=vector
    )

    assert encoder.encoded == []
    assert same is vector
    assert first[0].interaction_id == "greet" and again[0].interaction_id != "greet"


def test_a_known_vector_ranks_as_encoding_the_message_would_without_encoding_it() -> None:
    """The inbox's suggestions: the vector a turn kept stands for encoding its message
    again (as stored, float16); a text without one is named, to be encoded in a batch."""
    encoder = ConceptEncoder()
    index = semantic(encoder, PHRASES)
    message = "howdy greetings"
    stored = tuple(float(x) for x in encoder([message])[0].astype(np.float16))
    encoder.encoded.clear()
    known = KnownVectors(encoder, {message: stored})
    assert ranked(message, index, known) == ranked(message, index, ConceptEncoder())
    assert encoder.encoded == []
    with pytest.raises(VectorUnknown) as unknown:
        ranked("rain", index, known)
    assert unknown.value.texts == ["rain"]
    assert ranked("order a pizza", index, known)[0].interaction_id == "pizza"  # decisive


def test_a_small_story_keeps_its_phrase_vectors_as_float32_a_large_one_as_float16(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(semantic_module, "FLOAT32_PHRASES", 4)
    encoder = ConceptEncoder()
    small = semantic(encoder, {"greet": PHRASES["greet"], "weather": PHRASES["weather"]})
    large = small.updated({"pizza": [encoder(PHRASES["pizza"])[0]] * 2})
    query = encoder(["hello"])[0]
    centroids = 2 * 4 * 4  # each interaction's, and the stacked copy: 4 float32 dimensions
    assert small.nbytes == 4 * 4 * 4 + 2 * centroids  # 4 phrases, float32
    assert large.nbytes == 6 * 4 * 2 + 3 * centroids  # 6 phrases, float16
    assert small.similarity(query, "greet", 3) == large.similarity(query, "greet", 3)
    back = large.updated({}, removed=["pizza"])
    assert back.nbytes == small.nbytes


def test_a_sure_lexical_winner_in_the_message_s_language_is_never_overruled() -> None:
    encoder = ConceptEncoder()
    index = semantic(encoder, PHRASES)
    text = "will it rain order large"
    lexical = MatchIndex.build(PHRASES).search([tokens(text)], bool)
    assert lexical[0].interaction_id == "weather"
    assert SCORING.sure_in_language <= lexical[0].score < SCORING.decisive
    assert ranked(text, index, encoder)[0].interaction_id == "pizza"  # meaning overrules

    kept = rank(MatchIndex.build(PHRASES), index, encoder, [tokens(text)], bool, in_language=True)
    first, *others = kept[0]
    assert (first.interaction_id, first.score) == ("weather", lexical[0].score)
    assert all(round(o.score, 6) < round(first.score, 6) for o in others)


class _Fixed:
    """An encoder whose message vector is given: somewhat towards pizza, the rest
    towards greetings, which the story below does not have."""

    model_id = ConceptEncoder.model_id
    languages = ConceptEncoder.languages
    calibration = ConceptEncoder.calibration
    cross_lingual = True
    any_language = False

    def __call__(self, texts: object) -> np.ndarray:
        return np.array([[np.sqrt(1 - 0.09), 0.0, 0.3, 0.0]], np.float32)


def test_meaning_far_from_a_sure_lexical_winner_lowers_it_below_the_confidence() -> None:
    phrases = {i: ps for i, ps in PHRASES.items() if i != "greet"}
    index = semantic(ConceptEncoder(), phrases)
    text = "what is the time"
    lexical = MatchIndex.build(phrases).search([tokens(text)], bool)
    assert lexical[0].interaction_id == "weather"
    assert SCORING.sure_in_language <= lexical[0].score < SCORING.decisive

    kept = rank(MatchIndex.build(phrases), index, _Fixed(), [tokens(text)], bool, in_language=True)
    first, *others = kept[0]
    assert first.interaction_id == "weather"
    assert first.score < 0.5 and first.score < lexical[0].score
    assert all(o.score < first.score for o in others)
