import numpy as np
from scipy import sparse

from bot_api.engine.segments import Segment, term_counts


def segment_of(phrase_terms: list[list[int]], width: int) -> Segment:
    """One interaction per phrase, its terms numbered as given."""
    counts = term_counts(
        [t for p in phrase_terms for t in p], [len(p) for p in phrase_terms], width
    )
    weights = np.linspace(0.5, 2.0, width, dtype=np.float32)
    ids = [f"i{n}" for n in range(len(phrase_terms))]
    return Segment.build(ids, [[f"phrase {n}"] for n in ids], ids, counts, weights)


def test_the_shortlist_is_the_product_of_the_terms_centroid_rows_to_the_bit() -> None:
    rng = np.random.default_rng(30)
    phrases = [list(rng.integers(0, 40, size=rng.integers(1, 9))) for _ in range(25)]
    segment = segment_of(phrases, 40)
    for size in (0, 1, 5, 12):
        terms = np.sort(rng.choice(45, size=size, replace=False)).astype(np.int32)
        weights = rng.random(size, dtype=np.float32)
        inside = terms < 40
        picked = sparse.csr_matrix(segment.by_term)[terms[inside]]
        expected = np.asarray(picked.T @ weights[inside], dtype=np.float32).ravel()
        scores = segment.shortlist(terms, weights)
        assert scores.dtype == np.float32
        assert np.array_equal(scores, expected)
        assert (scores > 0).sum() <= len(phrases)
