"""The encoder a conversation-test run uses remembers what it encoded: a message is
encoded once, while it is among the last texts asked."""

import numpy as np

from bot_api.engine.remembering import RememberingEncoder
from support.encoders import ConceptEncoder


def test_a_text_is_encoded_once_and_answered_in_the_order_asked() -> None:
    inner = ConceptEncoder()
    remembering = RememberingEncoder(inner)

    first = remembering(["hello", "pizza", "hello"])
    again = remembering(["pizza", "hello"])

    assert inner.encoded == ["hello", "pizza"]
    np.testing.assert_array_equal(first, inner(["hello", "pizza", "hello"]))
    np.testing.assert_array_equal(again, first[[1, 0]])
    assert (remembering.model_id, remembering.calibration) == (
        inner.model_id,
        inner.calibration,
    )


def test_only_the_last_texts_are_remembered() -> None:
    inner = ConceptEncoder()
    remembering = RememberingEncoder(inner, size=2)

    remembering(["hello"])
    remembering(["pizza"])
    remembering(["hello"])
    remembering(["rain"])
    remembering(["hello", "pizza"])

    assert inner.encoded == ["hello", "pizza", "rain", "pizza"]
