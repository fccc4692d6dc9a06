"""The encoder of stories answering any language: USE's and e5's vectors side by side,
read with the real models."""

import numpy as np

from bot_api.encoding.e5_small import E5SmallEncoder
from bot_api.encoding.use_and_e5 import UseAndE5Encoder
from bot_api.encoding.use_multilingual import UseMultilingualEncoder


def test_a_cosine_is_the_mean_of_the_two_models_and_a_translation_is_closest() -> None:
    use, e5 = UseMultilingualEncoder(), E5SmallEncoder()
    texts = ["when do you open", "hvornår har i åbent", "play some jazz music"]
    both = UseAndE5Encoder(use, e5)(texts)
    assert both.shape == (3, 512 + 384) and both.dtype == np.float32
    assert np.allclose(np.linalg.norm(both, axis=1), 1.0, atol=1e-5)

    cosines = both @ both.T
    parts = [use(texts), e5.queries(texts)]
    means = sum(p @ p.T for p in parts) / 2
    assert np.allclose(cosines, means, atol=1e-5)
    assert cosines[0, 1] > cosines[0, 2] and cosines[1, 0] > cosines[1, 2]
