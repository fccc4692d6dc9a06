# ruff: noqa: RUF001 (Chinese and Japanese punctuation is meant)
"""How each story language's text becomes words, stems and pieces (engine/analysis.py)."""

import pytest

from bot_api.domain.settings import LANGUAGES, STEMMED_LANGUAGES
from bot_api.engine.analysis import analyser, pieces
from bot_api.engine.conversation import respond
from bot_api.engine.text import tokens
from bot_api.engine.turn import SessionState, Turn
from support.stories import interaction, story


@pytest.mark.parametrize("language", sorted(STEMMED_LANGUAGES))
def test_a_spaced_language_reads_words_as_tokens_and_stems_with_snowball(language: str) -> None:
    said = "Où est-ce, S'il vous plaît? I'd like 2 pizzas_now"
    assert analyser(language).words(said) == tokens(said)


def test_each_language_stems_its_own_way() -> None:
    assert analyser("english").stem("buying") == "buy"
    assert analyser("german").stem("kaufen") == "kauf"
    assert analyser("english").stem("kaufen") == "kaufen"
    assert analyser("chinese").stem("机票") == "机票"


def test_an_analyser_is_made_once_per_language() -> None:
    assert analyser("chinese") is analyser("chinese")
    assert {analyser(language).language for language in LANGUAGES} == set(LANGUAGES)


def test_a_chinese_sentence_is_segmented_into_words() -> None:
    words = analyser("chinese").words("我想订两张去北京的机票。")
    assert words == ["我想订", "两张", "去", "北京", "的", "机票"]
    assert tokens("我想订两张去北京的机票。") == ["我想订两张去北京的机票"]


def test_a_japanese_sentence_is_segmented_into_dictionary_forms_without_particles() -> None:
    words = analyser("japanese").words("東京から大阪までの航空券を予約したいです。昨日買いました")
    assert words == ["東京", "大阪", "航空券", "予約", "する", "昨日", "買う"]
    assert analyser("japanese").words("ですか") == ["です", "か"], "nothing else: kept"
    assert "ガイド" in analyser("japanese").words("ｶﾞｲﾄﾞ")  # half-width kana, voicing kept


@pytest.mark.parametrize("language", ["chinese", "japanese"])
def test_latin_words_inside_chinese_or_japanese_read_as_in_other_languages(language: str) -> None:
    assert analyser(language).words("iPhone 15 Café") == ["iphone", "15", "cafe"]
    mixed = analyser(language).words("买iPhone 15和一杯Café")
    assert [w for w in mixed if w.isascii()] == ["iphone", "15", "cafe"]


def test_pieces_are_four_letters_or_chinese_and_japanese_characters_and_pairs() -> None:
    assert pieces("pizza") == [" piz", "pizz", "izza", "zza "]
    assert pieces("机票") == ["机", "票", " 机", "机票", "票 "]  # a space alone is no piece


def test_a_chinese_story_finds_entity_values_and_matches_other_phrasings() -> None:
    model = story(
        interaction(
            "book",
            "我想订一张去{{city:to}}的机票",
            "帮我买机票",
            parameters=[{"alias": "to", "entity": "city", "prompts": []}],
        ),
        interaction("weather", "明天天气怎么样", "今天会下雨吗"),
        entities={"city": ["北京", "上海"]},
        language="chinese",
    )
    _, booked = respond(model, SessionState(), Turn(query="请帮我预订去上海的机票"))
    assert booked.interaction is not None and booked.interaction.id == "book"
    assert booked.parameters["to"] == "上海"
    _, weather = respond(model, SessionState(), Turn(query="上海明天会下雨吗？"))
    assert weather.interaction is not None and weather.interaction.id == "weather"


@pytest.mark.parametrize(
    ("language", "greetings", "question"),
    [
        ("chinese", ("你好", "您好", "早上好"), "谁演唱了国歌？"),
        ("japanese", ("こんにちは", "おはよう"), "国歌を歌ったのは誰ですか？"),
    ],
)
def test_a_question_sharing_no_character_with_a_story_falls_back(
    language: str, greetings: tuple[str, ...], question: str
) -> None:
    """Every word once had a lone space for a piece, which every two texts shared: a
    story's greetings answered any question at just over the default confidence."""
    model = story(interaction("greet", *greetings), language=language)
    _, outcome = respond(model, SessionState(), Turn(query=question))
    assert outcome.interaction is None or outcome.interaction.id != "greet", outcome.score
