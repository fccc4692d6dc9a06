"""The misses inbox's clustering, as pure code: same text, near-identical text and close
sentence vectors group together; unrelated messages do not; the biggest comes first."""

import random
from datetime import UTC, datetime, timedelta

import numpy as np
from rapidfuzz import fuzz

from bot_api.engine.clustering import (
    EXAMPLES,
    LEXICAL_SIMILARITY,
    SEMANTIC_SIMILARITY,
    Miss,
    cluster_id,
    clusters,
    normalised,
)

T0 = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


def misses(*texts: str, vector: tuple[float, ...] | None = None) -> list[Miss]:
    return [
        Miss(f"t{n}-{text}", text, T0 + timedelta(minutes=n), vector)
        for n, text in enumerate(texts)
    ]


def test_identical_normalised_texts_count_together() -> None:
    found = clusters(misses("Where is my order?", "where is my ORDER", "Where  is my order!"))
    assert len(found) == 1
    assert found[0].count == 3
    assert found[0].first == T0 and found[0].last == T0 + timedelta(minutes=2)
    assert len(found[0].members) == 3


def test_typos_join_and_other_requests_stay_apart_without_vectors() -> None:
    found = clusters(
        misses("where is my order", "where is my order", "wher is my ordr", "where is my parcel")
    )
    assert [(c.count, c.representative) for c in found] == [
        (3, "where is my order"),
        (1, "where is my parcel"),
    ]
    assert found[0].texts == ("where is my order", "wher is my ordr")


def test_close_vectors_join_whatever_the_words() -> None:
    north, near_north, east = (1.0, 0.0, 0.0), (0.8, 0.6, 0.0), (0.0, 0.0, 1.0)
    found = clusters(
        [
            *misses("what are your opening hours", "what are your opening hours", vector=north),
            *misses("when do you open", vector=near_north),
            *misses("do you sell gift cards", vector=east),
        ]
    )
    assert [(c.count, c.texts) for c in found] == [
        (3, ("what are your opening hours", "when do you open")),
        (1, ("do you sell gift cards",)),
    ]


def test_distant_vectors_stay_apart_even_with_similar_words() -> None:
    found = clusters(
        [
            *misses("cancel my subscription", vector=(1.0, 0.0)),
            *misses("cancel my subscriptions", vector=(0.0, 1.0)),
        ]
    )
    assert len(found) == 2


def test_a_message_without_vector_joins_a_vector_cluster_by_its_words() -> None:
    found = clusters(
        [
            *misses("where is my order", "where is my order", vector=(1.0, 0.0)),
            *misses("where is my ordr"),
        ]
    )
    assert [c.count for c in found] == [3]


def test_the_biggest_cluster_comes_first_and_shows_a_few_examples_most_frequent_first() -> None:
    texts = [f"refund number {n}" for n in range(EXAMPLES + 3)]
    vector = (0.0, 1.0)
    found = clusters(
        [
            *misses("hello there"),
            *misses(*(["refund please"] * 3), *texts, vector=vector),
        ]
    )
    assert [c.count for c in found] == [3 + len(texts), 1]
    assert found[0].examples[0] == "refund please"
    assert len(found[0].examples) == EXAMPLES
    assert len(found[0].texts) == 1 + len(texts)


def test_the_id_is_the_leaders_text_so_it_survives_new_members() -> None:
    before = clusters(misses("where is my order", "where is my order", "wher is my ordr"))
    after = clusters(
        misses("where is my order", "where is my order", "wher is my ordr", "where is my ordr")
    )
    assert before[0].id == after[0].id == cluster_id("Where is my order?")


def test_many_batches_of_vectors_cluster_as_one_pass_would() -> None:
    """More groups than one batch: leaders made in an earlier batch are found later."""
    found = clusters(
        Miss(f"t{n}", f"message {n}", T0, (1.0, 0.0) if n % 2 else (0.0, 1.0)) for n in range(600)
    )
    assert sorted(c.count for c in found) == [300, 300]


def test_a_cluster_counts_its_turns_by_the_language_each_was_read_in() -> None:
    read = [
        Miss("t1", "wo ist meine Bestellung", T0, language="de"),
        Miss("t2", "wo ist meine Bestellung", T0, language="de"),
        Miss("t3", "wo ist meine Bestelung", T0, language="en"),
        Miss("t4", "wo ist meine Bestellung?", T0, language="fr"),
        Miss("t5", "wo ist meine Bestellung", T0),
        Miss("t6", "do you sell gift cards", T0),
    ]
    german, gifts = clusters(read)
    assert list(german.languages.items()) == [("de", 2), ("en", 1), ("fr", 1)]
    assert gifts.languages == {}


def test_nothing_to_cluster() -> None:
    assert clusters([]) == []
    assert clusters(misses("?!", "...")) == []


def one_by_one(found: list[Miss]) -> set[frozenset[str]]:
    """The clusters by their definition, one pair at a time: texts the biggest first,
    each joins the first leader alike, those with vectors before those without."""
    by_key: dict[str, list[Miss]] = {}
    for miss in found:
        by_key.setdefault(normalised(miss.text), []).append(miss)
    keys = sorted(by_key, key=lambda k: (-len(by_key[k]), k))
    vector = {k: unit(by_key[k][0].vector) for k in keys}

    def alike(key: str, leader: str) -> bool:
        own, other = vector[key], vector[leader]
        if own is not None:
            return other is not None and float(own @ other) >= SEMANTIC_SIMILARITY
        return fuzz.ratio(key, leader) >= LEXICAL_SIMILARITY

    leaders: list[str] = []
    members: dict[str, set[str]] = {}
    for key in [k for k in keys if vector[k] is not None] + [k for k in keys if vector[k] is None]:
        leader = next((leader for leader in leaders if alike(key, leader)), None)
        if leader is None:
            leaders.append(key)
        members.setdefault(leader or key, set()).update(m.turn_id for m in by_key[key])
    return {frozenset(ids) for ids in members.values()}


def unit(vector: tuple[float, ...] | None) -> np.ndarray | None:
    return None if vector is None else np.array(vector) / np.linalg.norm(vector)


def test_many_vectors_cluster_as_their_definition_says() -> None:
    """Unrelated vectors (the bound on part of the dimensions leaves few pairs to compute
    in full) and copies of some with noise (cosines 0.55 to 0.92) in later batches; a few
    of the copies alike only in the dimensions the bound leaves out."""
    rng = np.random.default_rng(18)
    vectors = rng.standard_normal((700, 128))
    vectors[600:] = vectors[:100] + rng.standard_normal((100, 128)) * 1.15
    vectors[:3, 80:] *= 3
    vectors[600:603, 80:] = vectors[:3, 80:]
    found = [
        Miss(f"t{n}", f"message {n:04d}", T0, tuple(map(float, v))) for n, v in enumerate(vectors)
    ]
    expected = one_by_one(found)
    assert {frozenset(m.turn_id for m in c.members) for c in clusters(found)} == expected
    assert 600 < len(expected) < 650


def test_many_texts_cluster_as_their_definition_says() -> None:
    """Typos of sentences made of the same few words, over several batches: the bound on
    characters lets through more than it should, never less."""
    rng = random.Random(18)
    words = ["where", "is", "my", "order", "refund", "please", "cancel", "plan", "card"]
    sentences = [" ".join(rng.choices(words, k=5)) for _ in range(200)]
    found = []
    for n in range(700):
        text = sentences[rng.randrange(len(sentences))]
        at = rng.randrange(len(text))
        found.append(Miss(f"t{n}", text[:at] + text[at + 1 :], T0))
    expected = one_by_one(found)
    assert {frozenset(m.turn_id for m in c.members) for c in clusters(found)} == expected
    assert 50 < len(expected) < 300


def test_lexical_likeness_exactly_at_the_threshold_joins() -> None:
    found = clusters(
        misses(
            "abcdefghijklmnopqrst",
            "abcdefghijklmnopqxyz",  # ratio 85
            "abcdefghijklmnopwxyz",  # 80
            "tsrqponmlkjihgfedcba",  # the same characters, in another order
        )
    )
    assert sorted(c.count for c in found) == [1, 1, 2]
    assert found[0].texts == ("abcdefghijklmnopqrst", "abcdefghijklmnopqxyz")


def test_texts_beyond_ascii_compare_by_their_characters() -> None:
    found = clusters(
        misses("où est ma commande", "ou est ma commande", "我的订单在哪里", "我的订单在哪")
    )
    assert sorted(c.count for c in found) == [2, 2]


def test_texts_of_the_same_characters_cluster_as_their_definition_says() -> None:
    """Anagrams pass the bound on characters nearly always: past a share of the pairs,
    every pair is scored."""
    rng = random.Random(18)
    letters = list("abcdefghij")
    found = []
    for n in range(600):
        rng.shuffle(letters)
        found.append(Miss(f"t{n}", "".join(letters[:9]) + " " + "".join(letters[6:]), T0))
    expected = one_by_one(found)
    assert {frozenset(m.turn_id for m in c.members) for c in clusters(found)} == expected
    assert 300 < len(expected) < 600
