"""The misses inbox's clustering, as pure code: same text, near-identical text and close
sentence vectors group together; unrelated messages do not; the biggest comes first."""

from datetime import UTC, datetime, timedelta

from bot_api.engine.clustering import EXAMPLES, Miss, cluster_id, clusters

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


def test_nothing_to_cluster() -> None:
    assert clusters([]) == []
    assert clusters(misses("?!", "...")) == []
