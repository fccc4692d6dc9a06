"""A story's settings and their defaults."""

from dataclasses import dataclass

import Stemmer

LANGUAGES = tuple(sorted(set(Stemmer.algorithms()) - {"porter", "dutch_porter"}))
"""The languages a story may be in: those the Snowball stemmer offers."""


@dataclass(frozen=True)
class Settings:
    confidence: float = 0.5
    """The score below which the fallback answers."""
    fallback: bool = True
    """False: a message that matches nothing gets no answer at all."""
    lifespan: int = 2
    """Misses a child context survives, and attempts to fill a prompted parameter."""
    language: str = "english"
    """How phrases are stemmed; the semantic stage runs only if its model covers it."""
