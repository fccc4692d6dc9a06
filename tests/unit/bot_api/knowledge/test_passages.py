"""Blocks cut into passages (knowledge/passages.py): a short block stays whole, a long one
is cut at sentence ends, and every passage points at its place in the document's text."""

from bot_api.knowledge.blocks import Block, Extracted
from bot_api.knowledge.passages import (
    BLOCK_CHARACTERS,
    PASSAGE_CHARACTERS,
    SENTENCES_PER_PASSAGE,
    document_text,
    passages_of,
    sentences,
)


def test_a_short_block_is_one_passage_under_its_heading_and_page() -> None:
    extracted = Extracted(
        (
            Block("  Opening hours are nine to six.  ", ("Shop", "Hours"), 2),
            Block("Returns take thirty days.", ("Shop", "Returns"), 3),
        )
    )
    first, second = passages_of(extracted, "doc", "english")
    assert (first.id, first.text, first.heading, first.page) == (
        "doc.0",
        "Opening hours are nine to six.",
        ("Shop", "Hours"),
        2,
    )
    text = document_text(extracted)
    for passage in (first, second):
        assert text[passage.start : passage.end] == passage.text
    assert second.page == 3 and second.id == "doc.1"


def test_a_long_block_is_cut_at_sentence_ends_within_the_bounds() -> None:
    sentence = "The committee met on the {n}th of May and agreed on the budget for the year."
    block = " ".join(sentence.format(n=n) for n in range(40))
    extracted = Extracted((Block("Intro.", ()), Block(block, ("Minutes",))))
    passages = passages_of(extracted, "d", "english")[1:]
    assert len(passages) > 1
    text = document_text(extracted)
    for passage in passages:
        assert len(passage.text) <= PASSAGE_CHARACTERS
        assert len(sentences(passage.text, "english")) <= SENTENCES_PER_PASSAGE
        assert passage.text.startswith("The committee") and passage.text.endswith("year.")
        assert text[passage.start : passage.end] == passage.text
    assert " ".join(p.text for p in passages) == block


def test_a_block_without_sentence_ends_is_cut_into_pieces_first() -> None:
    block = "word " * (BLOCK_CHARACTERS // 2)
    passages = passages_of(Extracted((Block(block),)), "d", "english")
    assert len(passages) >= 2
    assert all(len(p.text) <= PASSAGE_CHARACTERS for p in passages)


def test_sentences_follow_the_language() -> None:
    text = "我们九点开门。周日休息。"
    spans = sentences(text, "chinese")
    assert [text[s:e] for s, e in spans] == ["我们九点开门。", "周日休息。"]
