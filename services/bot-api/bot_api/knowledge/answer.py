"""The answer sentence: of the cited passage, the sentence holding most of the question's
term weight (the earlier on a tie), and the next sentence with it when it alone is
shorter than `SHORT_SENTENCE` characters (a heading-like or list-item sentence reads
better with what follows)."""

from collections.abc import Mapping

from bot_api.knowledge.passages import Passage, one_line, sentences
from bot_api.knowledge.terms import coverage, terms_of

SHORT_SENTENCE = 60


def answer_sentence(passage: Passage, language: str, weights: Mapping[str, float]) -> str:
    spans = sentences(passage.text, language) or [(0, len(passage.text))]
    best, best_share = 0, -1.0
    for index, (start, end) in enumerate(spans):
        share = coverage(weights, set(terms_of(language, passage.text[start:end])))
        if share > best_share:
            best, best_share = index, share
    start, end = spans[best]
    if end - start < SHORT_SENTENCE and best + 1 < len(spans):
        end = spans[best + 1][1]
    return one_line(passage.text[start:end])
