"""Messages encoded at the same time share one run of the model, and each call still gets
exactly its own rows (or the run's error)."""

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from bot_api.encoding.batching import MicroBatchingEncoder
from bot_api.engine.semantic import Vectors
from support.encoders import ConceptEncoder

MESSAGES = ["hello", "weather forecast", "large pizza", "hi there", "rain", "order pizza"]


def test_calls_made_while_the_model_runs_are_encoded_together_in_its_next_run() -> None:
    model = ConceptEncoder()
    encoder = MicroBatchingEncoder(model)
    model.released.clear()
    with ThreadPoolExecutor(max_workers=1 + len(MESSAGES)) as threads:
        first = threads.submit(encoder, ["greetings"])
        _until(lambda: bool(model.runs))  # the first run has started and holds the model
        rest = [threads.submit(encoder, [message]) for message in MESSAGES]
        _until(lambda: encoder.waiting == len(MESSAGES))
        model.released.set()
        results = [first.result(timeout=10)] + [f.result(timeout=10) for f in rest]

    assert model.runs == [["greetings"], MESSAGES]
    alone = ConceptEncoder()
    for texts, vectors in zip([["greetings"], *[[m] for m in MESSAGES]], results, strict=True):
        np.testing.assert_array_equal(vectors, alone(texts))


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "the calls did not get there"
        time.sleep(0.001)


def test_a_call_of_several_texts_gets_its_rows_in_order() -> None:
    encoder = MicroBatchingEncoder(ConceptEncoder())

    vectors = encoder(MESSAGES)

    np.testing.assert_array_equal(vectors, ConceptEncoder()(MESSAGES))


class _Failing:
    model_id = "failing"
    languages = frozenset({"english"})
    calibration = ConceptEncoder.calibration

    def __init__(self) -> None:
        self.fail = True

    def __call__(self, texts: Sequence[str]) -> Vectors:
        if self.fail:
            raise RuntimeError("the model could not run")
        return np.ones((len(texts), 2), np.float32)


def test_a_failed_run_fails_its_calls_and_the_next_call_runs_again() -> None:
    model = _Failing()
    encoder = MicroBatchingEncoder(model)
    with pytest.raises(RuntimeError, match="could not run"):
        encoder(["hello"])

    model.fail = False

    assert encoder(["hello", "hi"]).shape == (2, 2)
