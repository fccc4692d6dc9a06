"""Which encoder reads a story, and the language a message is written in."""

from dataclasses import dataclass

import pytest

from bot_api.domain.settings import Settings
from bot_api.engine.language_detection import language_of, written_in
from bot_api.engine.scoring import Calibration
from bot_api.engine.semantic import Encoders, Vectors

CALIBRATION = Calibration(0.05, 0.44, 0.2)


@dataclass(frozen=True)
class Named:
    model_id: str
    languages: frozenset[str]
    cross_lingual: bool
    any_language: bool = False
    calibration = CALIBRATION

    def __call__(self, texts: object) -> Vectors:
        raise AssertionError("not called here")


ENGLISH = Named("english-only", frozenset({"english"}), cross_lingual=False)
MANY = Named("many", frozenset({"english", "german", "japanese"}), cross_lingual=True)
MOST = Named("most", frozenset({"english", "german", "danish"}), True, any_language=True)


@pytest.mark.parametrize(
    ("settings", "chosen"),
    [
        (Settings(), ENGLISH),
        (Settings(answer_any_language=True), MOST),
        (Settings(language="german"), None),
        (Settings(language="german", answer_any_language=True), MOST),
        (Settings(language="danish"), None),
        (Settings(language="danish", answer_any_language=True), MOST),
        (Settings(language="japanese", answer_any_language=True), None),
        (Settings(languages=("de",)), MANY),
        (Settings(language="german", languages=("en", "ja")), MANY),
        (Settings(language="danish", languages=("en",)), MOST),
        (Settings(language="danish", languages=("en",), answer_any_language=True), MOST),
    ],
)
def test_a_story_is_read_by_the_first_encoder_of_its_kind_covering_its_language(
    settings: Settings, chosen: Named | None
) -> None:
    assert Encoders((ENGLISH, MANY, MOST)).for_story(settings) is chosen


def test_without_an_encoder_of_its_kind_a_story_is_lexical() -> None:
    assert Encoders((ENGLISH, MANY)).for_story(Settings(answer_any_language=True)) is None
    assert Encoders((ENGLISH,)).for_story(Settings(languages=("de",))) is None
    assert Encoders((MANY, MOST)).for_story(Settings()) is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("wie wird das wetter morgen in berlin", "de"),
        ("quel temps fera-t-il demain à paris", "fr"),
        ("what time is it in tokyo", "en"),
        ("明天北京的天气怎么样", "zh"),
        ("今日の天気はどうですか", "ja"),
        ("¿a qué hora abre la tienda?", "es"),
        ("apakah besok akan hujan di jakarta", "id"),
    ],
)
def test_a_message_is_said_to_be_in_its_language(text: str, code: str) -> None:
    assert written_in(text) == code


def test_when_unsure_the_language_noted_before_or_else_the_storys_is_kept() -> None:
    assert written_in("ok") is None
    assert language_of(None, "de", "english") == "de"
    assert language_of(None, None, "english") == "en"
    assert language_of(None, 7, "spanish") == "es"
    assert language_of("de", "fr", "english") == "de"
