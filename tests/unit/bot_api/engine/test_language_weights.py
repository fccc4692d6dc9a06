"""A term's weight in its language: common words weigh little in a small story, and a
large story weighs its terms by its own phrases."""

import math

import pytest

from bot_api.engine.language_weights import HALFWAY_PHRASES, language_share, language_weights
from bot_api.engine.matching import MatchIndex
from bot_api.engine.text import tokens

from .test_matching import large_story

PIZZA = {
    "order": ["I want to order a pizza", "can I get a large pizza", "I'd like a margherita"],
    "hours": ["when are you open", "what are your opening hours"],
    "delivery": ["do you deliver", "how long does delivery take"],
}
"""make eval's small English story (bench/data/small_stories.json)."""


def answer(index: MatchIndex, text: str) -> str:
    """The interaction answering at the default confidence, or "fallback"."""
    words = index.analyser.words(text)
    found = index.search([words], lambda i: True)
    return found[0].interaction_id if found and found[0].score >= 0.5 else "fallback"


def test_the_language_s_common_words_and_pieces_weigh_least_and_rare_ones_fully() -> None:
    english = language_weights("english")
    assert english["to"] == english["you"] == 0.1
    assert "margherita" not in english  # rarer than RARE_ZIPF: weighs 1
    assert english["#ing "] == 0.1  # the end of every -ing word
    assert english["#ing "] < english["#izza"] < 1
    assert english["want"] < english["pizza"]  # "want", "wants", "wanted" added up


def test_chinese_and_japanese_are_weighed_as_our_segmenters_write_their_words() -> None:
    chinese, japanese = language_weights("chinese"), language_weights("japanese")
    assert chinese["你们"] < chinese["披萨"]
    assert chinese["#们"] < chinese["#披"]
    assert japanese["する"] < japanese["ピザ"]
    assert "が" in japanese  # its voicing mark kept, as the analyser keeps it


def test_a_language_without_word_frequencies_weighs_every_term_alike() -> None:
    assert language_weights("armenian") == {}


def test_the_language_weight_counts_in_full_in_small_stories_and_fades_in_large_ones() -> None:
    assert language_share(0) == 1
    assert language_share(HALFWAY_PHRASES) == 0.5
    assert language_share(13) > 0.9
    assert language_share(300) < 0.01


def test_a_small_story_lets_what_shares_only_the_language_s_common_words_fall_back() -> None:
    index = MatchIndex.build(PIZZA)
    for said in ("I want to order a taxi", "do you sell shoes", "can I get a refund"):
        assert answer(index, said) == "fallback", said
    for said, expected in [
        ("please order me a pepperoni pizza", "order"),
        ("one medium pizza please", "order"),
        ("are you open on sunday", "hours"),
        ("how fast is your delivery", "delivery"),
    ]:
        assert answer(index, said) == expected, said


def test_a_small_chinese_or_japanese_story_does_so_too() -> None:
    chinese = MatchIndex.build(
        {
            "order": ["我想订一个披萨", "我可以要一个大披萨吗", "我想要一个玛格丽特披萨"],
            "hours": ["你们什么时候开门", "你们的营业时间是什么"],
            "delivery": ["你们送外卖吗", "送餐要多长时间"],
        },
        "chinese",
    )
    assert answer(chinese, "我想叫一辆出租车") == "fallback"
    assert answer(chinese, "我可以退款吗") == "fallback"
    assert answer(chinese, "请给我一个中号披萨") == "order"
    japanese = MatchIndex.build(
        {
            "order": [
                "ピザを注文したいです",
                "Lサイズのピザをください",
                "マルゲリータをお願いします",
            ],
            "hours": ["何時に開いていますか", "営業時間を教えてください"],
            "delivery": ["配達はしていますか", "配達にはどのくらいかかりますか"],
        },
        "japanese",
    )
    assert answer(japanese, "靴は売っていますか") == "fallback"
    assert answer(japanese, "日曜日は営業していますか") == "hours"


def test_a_large_story_weighs_its_terms_by_its_own_phrases() -> None:
    phrases = large_story()
    count = sum(map(len, phrases.values()))
    using_the = sum("the" in tokens(p) for ps in phrases.values() for p in ps)
    idf = math.log(1 + (count + 1) / (using_the + 1))
    assert MatchIndex.build(phrases).weight("the") == pytest.approx(idf, rel=0.02)
    small = MatchIndex.build(PIZZA)
    assert small.weight("the") < 0.2 * small.weight("margherita")
