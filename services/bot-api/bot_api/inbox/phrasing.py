"""Where the inbox's actions put a cluster's messages: each among the phrases of the
language its turns were read in, so a German miss becomes a German phrase of a story
that speaks German beside English (docs/languages.md "The misses inbox")."""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot_api.domain.interactions import MAX_USER_SAYS, Interaction, Translation
from bot_api.domain.settings import Settings
from bot_api.engine.clustering import Cluster, normalised


@dataclass(frozen=True)
class Placed:
    """An interaction with a cluster's messages among its phrases: those added, and those
    past `MAX_USER_SAYS` phrases in their language (not added; a message it had already
    is neither)."""

    interaction: Interaction
    added: list[str]
    not_added: list[str]


def by_language(cluster: Cluster, texts: Sequence[str], settings: Settings) -> dict[str, list[str]]:
    """`texts` by the language (ISO 639-1 code) most of their turns were read in; the
    story's default for a text whose turns record none (a story of one language) or a
    language the story no longer speaks. The default comes first."""
    spoken = settings.spoken()
    counts: dict[str, dict[str, int]] = {}
    for miss in cluster.members:
        if miss.language in spoken:
            of_text = counts.setdefault(normalised(miss.text), {})
            of_text[miss.language] = of_text.get(miss.language, 0) + 1
    placed: dict[str, list[str]] = {settings.default_code: []}
    for text in texts:
        languages = counts.get(normalised(text))
        language = max(languages, key=languages.__getitem__) if languages else None
        placed.setdefault(language or settings.default_code, []).append(text)
    return placed


def with_phrases(
    interaction: Interaction, texts: dict[str, list[str]], default_code: str
) -> Placed:
    """`interaction` with `texts` (by language, as `by_language` gives them) added to
    its own phrases of each language; a text it has in that language (by normalised
    text) is not added twice."""
    user_says = interaction.user_says
    translations = dict(interaction.translations)
    added: list[str] = []
    not_added: list[str] = []
    for language, given in texts.items():
        own = translations.get(language, Translation())
        phrases = user_says if language == default_code else own.user_says
        present = {normalised(p) for p in phrases}
        fits, left = _fitting([t for t in given if normalised(t) not in present], phrases)
        added += fits
        not_added += left
        if not fits:
            continue
        if language == default_code:
            user_says = (*phrases, *fits)
        else:
            translations[language] = replace(own, user_says=(*phrases, *fits))
    edited = replace(interaction, user_says=user_says, translations=translations)
    return Placed(edited, added, not_added)


def _fitting(texts: Sequence[str], phrases: Sequence[str]) -> tuple[list[str], list[str]]:
    """`texts` without repeats (by normalised text) split at the room `phrases` leave:
    those that fit, and those that do not."""
    seen: set[str] = set()
    distinct = []
    for text in texts:
        if normalised(text) not in seen:
            seen.add(normalised(text))
            distinct.append(text)
    room = max(MAX_USER_SAYS - len(phrases), 0)
    return distinct[:room], distinct[room:]
