"""The answer sentence: of the cited passage, the sentence holding most of the question's
term weight (the earlier on a tie), and the next sentence with it when it alone is
shorter than `SHORT_SENTENCE` characters (a heading-like or list-item sentence reads
better with what follows). A question that shares no word with any sentence (one in
another language) gets the sentence `closest` in meaning, where it is given."""

from collections.abc import Callable, Mapping, Sequence

from bot_api.knowledge.passages import Passage, one_line, sentences
from bot_api.knowledge.terms import coverage, terms_of

SHORT_SENTENCE = 60


Closest = Callable[[Sequence[str]], int]
"""The index of the sentence closest in meaning to the question."""


def answer_sentence(
    passage: Passage,
    language: str,
    weights: Mapping[str, float],
    closest: Closest | None = None,
) -> str:
    spans = sentences(passage.text, language) or [(0, len(passage.text))]
    best, best_share = 0, -1.0
    for index, (start, end) in enumerate(spans):
        share = coverage(weights, set(terms_of(language, passage.text[start:end])))
        if share > best_share:
            best, best_share = index, share
    if best_share <= 0 and closest is not None and len(spans) > 1:
        best = closest([passage.text[start:end] for start, end in spans])
    start, end = spans[best]
    if end - start < SHORT_SENTENCE and best + 1 < len(spans):
        end = spans[best + 1][1]
    return one_line(passage.text[start:end])
