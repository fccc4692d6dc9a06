"""Would a learned stage beat the blend? Softmax regression trained on each dataset's
MiniLM phrase vectors (the same phrases make eval uploads), top-1 on its test split.
Run by hand (`python -m bench.learned`); docs/matching.md has the result."""

import numpy as np

from bench.eval_nlu import BRAUN, DATASETS, intents
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.engine.semantic import Vectors
from bot_api.engine.text import tokens

STEPS = 300
LEARNING_RATE = 4.0
L2 = 1e-4


def trained(vectors: Vectors, labels: np.ndarray, classes: int) -> tuple[Vectors, Vectors]:
    weights = np.zeros((vectors.shape[1], classes), np.float32)
    bias = np.zeros(classes, np.float32)
    targets = np.eye(classes, dtype=np.float32)[labels]
    for _ in range(STEPS):
        logits = vectors @ weights + bias
        odds = np.exp(logits - logits.max(axis=1, keepdims=True))
        gradient = (odds / odds.sum(axis=1, keepdims=True) - targets) / len(vectors)
        weights -= LEARNING_RATE * (vectors.T @ gradient + L2 * weights)
        bias -= LEARNING_RATE * gradient.sum(axis=0)
    return weights, bias


def main() -> None:
    encoder = MiniLmEncoder()
    right: dict[str, tuple[int, int]] = {}
    for name in DATASETS:
        by_intent, test = intents(name)
        names = list(by_intent)
        phrases = [(k, p) for k, i in enumerate(names) for p in by_intent[i]]
        vectors = encoder([" ".join(tokens(p)) for _, p in phrases])
        weights, bias = trained(vectors, np.array([k for k, _ in phrases]), len(names))
        asked = encoder([" ".join(tokens(t)) for t, _ in test])
        predicted = (asked @ weights + bias).argmax(axis=1)
        right[name] = (
            sum(names[p] == g for p, (_, g) in zip(predicted, test, strict=True)),
            len(test),
        )
        print(f"{name}: top-1 {right[name][0] / right[name][1]:.3f}")
    braun = [right[n] for n in BRAUN]
    print(f"braun overall: top-1 {sum(r for r, _ in braun) / sum(n for _, n in braun):.3f}")


if __name__ == "__main__":
    main()
