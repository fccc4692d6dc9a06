"""The scoring value and the encoder's calibration: one place for the blend's numbers."""

from dataclasses import replace

from bot_api.engine.matching import MatchIndex
from bot_api.engine.ranking import rank
from bot_api.engine.scoring import SCORING, Scoring
from bot_api.engine.semantic import Encoder, KnownVectors, SemanticIndex
from bot_api.engine.text import tokens
from support.encoders import ConceptEncoder

PHRASES = {
    "greet": ["hello there", "hi friend"],
    "weather": ["what is the weather", "will it rain today"],
    "pizza": ["I want a large pizza", "order a pizza"],
}
MESSAGE = "howdy howdy order"
"""Means a greeting (twice) more than an order, but shares a word only with the order."""


def ranked(encoder: Encoder, scoring: Scoring = SCORING) -> list[tuple[str, float]]:
    semantic = SemanticIndex.build(
        encoder.model_id,
        {i: list(encoder([" ".join(tokens(p)) for p in ps])) for i, ps in PHRASES.items()},
    )
    lexical = MatchIndex.build(PHRASES)
    found, _ = rank(lexical, semantic, encoder, [tokens(MESSAGE)], bool, scoring=scoring)
    return [(s.interaction_id, s.score) for s in found]


def test_the_scoring_given_decides_the_ranking() -> None:
    encoder = ConceptEncoder()
    assert ranked(encoder)[0][0] == "greet"
    assert ranked(encoder, replace(SCORING, lexical_share=1.0))[0][0] == "pizza"


def test_the_encoder_s_calibration_decides_how_its_cosines_read() -> None:
    encoder = ConceptEncoder()
    default = ranked(encoder)[0]
    encoder.calibration = replace(encoder.calibration, blend_knee=0.5)
    stricter = ranked(encoder)[0]
    assert stricter[0] == default[0]
    assert stricter[1] < default[1]


def test_a_wrapped_encoder_carries_the_model_s_calibration() -> None:
    encoder = ConceptEncoder()
    encoder.calibration = replace(encoder.calibration, temperature=0.5)
    assert KnownVectors(encoder, {}).calibration == encoder.calibration
