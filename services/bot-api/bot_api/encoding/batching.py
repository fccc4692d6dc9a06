"""The messages of /query turns encoded together: calls made while the model is busy wait
and are encoded in its next run, as one batch.

A turn encodes its message from a worker thread (conversations/answering.py). Alone,
every message costs a run of the model; under load the runs queue on the cores anyway,
so the calls that arrive meanwhile are gathered and the first of them runs them all.
Measured with all-MiniLM-L6-v2-int8 on one core: 4.4 ms for one text, 3.0 ms a text in
a batch of 8 to 32 (padding to the longest costs little on short messages).
"""

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bot_api.engine.semantic import Encoder, Vectors
from bot_api.metrics import ENCODER_BATCH_TEXTS


@dataclass
class _Call:
    texts: list[str]
    vectors: Vectors | None = None
    error: BaseException | None = None
    done: bool = False


class MicroBatchingEncoder:
    """An encoder that runs the model once for the calls made at the same time. One run
    at a time: the encoder's own threads stay one core's worth, and the other core keeps
    the event loop answering."""

    def __init__(self, encoder: Encoder) -> None:
        self.model_id = encoder.model_id
        self.languages = encoder.languages
        self.calibration = encoder.calibration
        self._encoder = encoder
        self._changed = threading.Condition()
        self._waiting: list[_Call] = []
        self._running = False

    @property
    def waiting(self) -> int:
        """Calls waiting for the model's next run."""
        with self._changed:
            return len(self._waiting)

    def __call__(self, texts: Sequence[str]) -> Vectors:
        call = _Call(list(texts))
        with self._changed:
            self._waiting.append(call)
            while not call.done and self._running:
                self._changed.wait()
            if call.done:
                return _outcome(call)
            batch, self._waiting = self._waiting, []
            self._running = True
        try:
            _run(self._encoder, batch)
        finally:
            with self._changed:
                self._running = False
                self._changed.notify_all()
        return _outcome(call)


def _run(encoder: Encoder, batch: list[_Call]) -> None:
    """Encode the calls' texts in one run and give each call its rows (or the error)."""
    texts = [text for call in batch for text in call.texts]
    ENCODER_BATCH_TEXTS.observe(len(texts))
    try:
        vectors = encoder(texts)
    except BaseException as error:
        for call in batch:
            call.error, call.done = error, True
        return
    start = 0
    for call in batch:
        call.vectors = np.ascontiguousarray(vectors[start : start + len(call.texts)])
        call.done = True
        start += len(call.texts)


def _outcome(call: _Call) -> Vectors:
    if call.error is not None:
        raise call.error
    assert call.vectors is not None
    return call.vectors
