"""What knowledge reads for meaning: the encoder of passages and questions, the text of a
passage it encodes, how lexical relevance and cosine are blended, and the answer
sentence of a question whose words the passage does not share (docs/knowledge.md).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from bot_api.engine.semantic import Vectors
from bot_api.knowledge.answer import Closest
from bot_api.knowledge.passages import Passage, one_line


class PassageEncoder(Protocol):
    """Unit-length vectors of passages and of the questions asked of them (the model
    reads each kind with its own prefix), comparable across languages."""

    model_id: str
    dimension: int

    def passages(self, texts: Sequence[str]) -> Vectors: ...

    def question(self, text: str) -> Vectors: ...


@dataclass(frozen=True)
class Blend:
    """How a passage is ranked once the passages' vectors are in: `share` of its lexical
    relevance (its BM25 score over the best candidate's) plus the rest of its cosine to
    the question; the best is refused when `share` of its coverage (the share of the
    question's term weight it holds) plus the rest of its cosine is below `refusal`. A
    question in another language than the story's is ranked by cosine alone and refused
    below `foreign_refusal`.

    Measured on XQuAD (bench/knowledge.py, docs/knowledge.md): gold answer in the
    cited passage at share 0.1 en 0.974, de 0.945, zh 0.954 (0.3: 0.957, 0.918, 0.939;
    cosine alone 0.935, 0.903). With every other article uploaded, at 0.76 the other
    half's questions are refused en 0.952, de 0.931 while the uploaded half's keep the
    right passage 0.959, 0.928 (0.78: 0.991/0.935, 0.993/0.902; the lexical refusal:
    0.763/0.922, 0.846/0.856); es 0.801/0.948. Chinese cosines run higher (at 0.76 only
    0.272 refused), so a Chinese story refuses below 0.80: 0.952/0.933. German questions
    of English articles, by cosine: at 0.78 0.808 refused, 0.776 kept (0.76: 0.313,
    0.824)."""

    share: float = 0.1
    refusal: float = 0.76
    foreign_refusal: float = 0.78
    refusal_by_language: Mapping[str, float] = field(default_factory=lambda: {"chinese": 0.80})
    """Stories of these languages refuse at their own threshold instead of `refusal`."""

    def refusal_of(self, language: str) -> float:
        return self.refusal_by_language.get(language, self.refusal)


BLEND = Blend()


def encoded_text(passage: Passage, title: str) -> str:
    """What a passage's vector is of: its document's title, its heading and its text (the
    title names what a paragraph's "it" is about)."""
    return one_line(" ".join((title, *passage.heading, passage.text)))


def closest_sentence(encoder: PassageEncoder, question: Vectors) -> Closest:
    """Which of a passage's sentences is closest to the question: for a question sharing
    no word with it (another language's). The few sentences are encoded when it answers,
    some 20 ms each of one core (bench/knowledge.py)."""

    def closest(texts: Sequence[str]) -> int:
        return int(np.argmax(encoder.passages(texts) @ question))

    return closest
