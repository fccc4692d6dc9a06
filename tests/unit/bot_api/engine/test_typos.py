"""Typo correction: still finds what was meant, and one message costs a bounded number of
comparisons whatever the story's vocabulary (issue 9, finding 1)."""

import random
import string
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rapidfuzz import fuzz

from bot_api.domain.entities import Entity, Entry
from bot_api.engine.analysis import analyser
from bot_api.engine.entities import EntityRecognizer
from bot_api.engine.matching import MatchIndex
from bot_api.engine.typos import MAX_COMPARED, MAX_LOOKUPS_PER_MESSAGE, TypoIndex

MOST_COMPARISONS = MAX_LOOKUPS_PER_MESSAGE * MAX_COMPARED


def made_up_words(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choices(string.ascii_lowercase, k=rng.randint(6, 9))))
    return sorted(words)


@pytest.fixture
def comparisons(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times rapidfuzz compared two words (its ratio, counted)."""
    counted = [0]
    ratio: Callable[..., float] = fuzz.ratio

    def counting_ratio(*args: Any, **kwargs: Any) -> float:
        counted[0] += 1
        return ratio(*args, **kwargs)

    monkeypatch.setattr(fuzz, "ratio", counting_ratio)
    yield counted


def test_a_typo_is_found_when_it_keeps_the_first_or_the_second_letter() -> None:
    known = TypoIndex(["large", "medium", "small", "delivery"])
    assert known.closest("lagre") == "large"
    assert known.closest("karge") == "large"
    assert known.closest("delivry") == "delivery"
    assert known.closest("xyzzy") is None
    assert known.closest("smal" * 20) is None


def test_a_message_of_unseen_words_is_compared_with_a_bounded_part_of_the_vocabulary(
    comparisons: list[int],
) -> None:
    vocabulary = made_up_words(6000, seed=1)
    phrases = [" ".join(vocabulary[n : n + 6]) for n in range(0, len(vocabulary), 6)]
    index = MatchIndex.build({f"i{n}": phrases[n : n + 20] for n in range(0, len(phrases), 20)})
    message = made_up_words(300, seed=2)

    index.search([message], lambda i: True)

    assert 0 < comparisons[0] <= MOST_COMPARISONS


def test_entity_typos_in_a_message_of_unseen_words_are_bounded_too(
    comparisons: list[int],
) -> None:
    synonyms = made_up_words(6000, seed=3)
    entries = tuple(Entry(s, (s,)) for s in synonyms)
    recognizer = EntityRecognizer([Entity("thing", entries)], analyser("english"))
    message = made_up_words(300, seed=4)

    recognizer.find(message)

    assert 0 < comparisons[0] <= MOST_COMPARISONS


def test_a_typo_of_an_entity_value_is_still_recognised_after_many_unseen_words() -> None:
    recognizer = EntityRecognizer(
        [Entity("size", (Entry("large", ("large",)),))], analyser("english")
    )
    mentions = recognizer.find(["lagre", "pizza"])
    assert [(m.value, m.text) for m in mentions] == [("large", "lagre")]
