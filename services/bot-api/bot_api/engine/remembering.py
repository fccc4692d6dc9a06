"""An encoder that remembers the vectors of the messages it encoded last.

A story's conversation tests send the same messages run after run (a run follows every
edit), and the encoder takes ~3 ms a message, one at a time: 500 test turns on the
150 × 99 story at the defaults took 1.7 s encoding afresh, 0.58 s with their vectors
remembered (the lexical stage alone 0.15 s; `python -m bench.conversation_tests`).
"""

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from bot_api.engine.scoring import Calibration
from bot_api.engine.semantic import Encoder, Vectors

REMEMBERED_TEXTS = 10_000
"""Five stories' worth of the most tests a story may hold (100 tests × 20 turns), in
15 MiB at 384 dimensions."""


class RememberingEncoder:
    """`encoder`, remembering the vectors of the last REMEMBERED_TEXTS texts. One thread
    uses it at a time (the runs' worker)."""

    def __init__(self, encoder: Encoder, size: int = REMEMBERED_TEXTS) -> None:
        self._encoder = encoder
        self._size = size
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()
        self.model_id: str = encoder.model_id
        self.languages: frozenset[str] = encoder.languages
        self.calibration: Calibration = encoder.calibration
        self.cross_lingual: bool = encoder.cross_lingual
        self.any_language: bool = encoder.any_language

    def __call__(self, texts: Sequence[str]) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, self._encoder(missing), strict=True):
                self._vectors[text] = vector
        for text in texts:
            self._vectors.move_to_end(text)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)
        return np.stack([self._vectors[text] for text in texts])
