"""Where the inbox's actions put a cluster's messages (bot_api/inbox/phrasing.py)."""

from datetime import UTC, datetime

from bot_api.domain.interactions import MAX_USER_SAYS, STANDARD, Interaction, Translation
from bot_api.domain.settings import Settings
from bot_api.engine.clustering import Cluster, Miss
from bot_api.inbox.phrasing import by_language, with_phrases

AT = datetime(2026, 12, 3, tzinfo=UTC)
SETTINGS = Settings(language="english", languages=("de", "fr"))


def cluster(*turns: tuple[str, str | None]) -> Cluster:
    members = tuple(Miss(str(i), text, AT, language=code) for i, (text, code) in enumerate(turns))
    texts = tuple(dict.fromkeys(text for text, _ in turns))
    return Cluster("c", len(turns), AT, AT, texts, members)


def test_each_message_goes_to_the_language_most_of_its_turns_were_read_in() -> None:
    mixed = cluster(
        ("Gutscheine bitte", "de"),
        ("Gutscheine bitte", "fr"),
        ("Gutscheine bitte", "de"),
        ("des bons cadeaux", "fr"),
        ("gift cards please", "en"),
        ("buoni regalo", "it"),
        ("no language kept", None),
    )
    assert by_language(mixed, mixed.texts, SETTINGS) == {
        "en": ["gift cards please", "buoni regalo", "no language kept"],
        "de": ["Gutscheine bitte"],
        "fr": ["des bons cadeaux"],
    }, "a language the story does not speak, or none, is the default's"
    assert by_language(mixed, ["des bons cadeaux"], SETTINGS) == {
        "en": [],
        "fr": ["des bons cadeaux"],
    }


def test_phrases_join_their_language_once_each_and_past_the_limit_are_left() -> None:
    full = tuple(f"phrase {i}" for i in range(MAX_USER_SAYS))
    interaction = Interaction(
        "i",
        STANDARD,
        "Cards",
        user_says=full,
        translations={"de": Translation(user_says=("Gutscheine bitte",), responses=())},
    )
    placed = with_phrases(
        interaction,
        {
            "en": ["gift cards please"],
            "de": ["gutscheine BITTE", "Karten", "Karten"],
            "fr": ["des bons cadeaux"],
        },
        "en",
    )
    assert placed.added == ["Karten", "des bons cadeaux"]
    assert placed.not_added == ["gift cards please"], "English holds its most phrases"
    assert placed.interaction.user_says == full
    assert placed.interaction.translations["de"].user_says == ("Gutscheine bitte", "Karten")
    assert placed.interaction.translations["fr"].user_says == ("des bons cadeaux",)
    assert interaction.translations["de"].user_says == ("Gutscheine bitte",), "unchanged"
