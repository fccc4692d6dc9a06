"""A story's `language` by name or by ISO 639-1 code, with a region or not."""

import pytest
from marshmallow import ValidationError

from bot_api.domain.redaction import phone_region, redact
from bot_api.domain.settings import LANGUAGE_TAGS, LANGUAGES, language_named
from bot_api.stories.schemas import SettingsSchema


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ("german", "german"),
        ("de", "german"),
        ("DE", "german"),
        ("de-AT", "german"),
        ("pt-BR", "portuguese"),
        ("pt-br", "portuguese"),
        ("zh-CN", "chinese"),
        ("zh_TW", "chinese"),
        ("zh-Hant-HK", "chinese"),
        ("ja", "japanese"),
        ("English", "english"),
    ],
)
def test_a_language_is_named_or_given_by_its_code(given: str, named: str) -> None:
    assert language_named(given) == named
    assert SettingsSchema().load({"language": given}) == {"language": named}


@pytest.mark.parametrize("given", ["klingon", "xx", "tlh", "", "-", "german-DE", " de"])
def test_an_unknown_language_or_code_is_refused_naming_how_to_give_one(given: str) -> None:
    assert language_named(given) is None
    with pytest.raises(ValidationError) as refused:
        SettingsSchema().load({"language": given})
    message = str(refused.value.messages)
    assert "ISO 639-1" in message and "english" in message and "chinese" in message


def test_every_story_language_has_its_code() -> None:
    assert sorted(LANGUAGE_TAGS) == list(LANGUAGES)
    assert len(set(LANGUAGE_TAGS.values())) == len(LANGUAGES)
    assert all(language_named(tag) == name for name, tag in LANGUAGE_TAGS.items())


def test_chinese_and_japanese_stories_read_phone_numbers_of_their_country() -> None:
    assert redact("电话 13812345678", phone_region("chinese")) == "电话 [phone]"
    assert redact("電話 090-1234-5678", phone_region("japanese")) == "電話 [phone]"
