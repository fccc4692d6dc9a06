"""What a story's language decides outside matching: its code and phone numbers."""

from bot_api.domain.redaction import phone_region, redact
from bot_api.domain.settings import LANGUAGE_TAGS, LANGUAGES


def test_every_story_language_has_its_code() -> None:
    assert sorted(LANGUAGE_TAGS) == list(LANGUAGES)
    assert len(set(LANGUAGE_TAGS.values())) == len(LANGUAGES)


def test_chinese_and_japanese_stories_read_phone_numbers_of_their_country() -> None:
    assert redact("电话 13812345678", phone_region("chinese")) == "电话 [phone]"
    assert redact("電話 090-1234-5678", phone_region("japanese")) == "電話 [phone]"
