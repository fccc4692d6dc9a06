"""How knowledge reads text: as the matcher reads the story's language (its words,
stemmed or segmented: engine/analysis.py), and how much of a question a text holds."""

from collections.abc import Mapping, Set

from bot_api.engine.analysis import analyser


def terms_of(language: str, text: str) -> list[str]:
    reading = analyser(language)
    return [reading.stem(word) for word in reading.words(text)]


def coverage(weights: Mapping[str, float], held: Set[str]) -> float:
    """The share of the question's term weight (`weights`) among the terms `held`."""
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in held) / total if total else 0.0
