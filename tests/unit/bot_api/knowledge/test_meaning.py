"""Knowledge answers by meaning, with the real multilingual-e5-small model on a few
hand-made passages: the blend ranks a paraphrase that shares no word with its passage,
an unrelated question is refused on the blend, a German question of an English story
answering any language is ranked by meaning with its answer sentence chosen by meaning,
and without vectors the index answers lexically."""

import functools

import pytest

from bot_api.domain.knowledge import Citation
from bot_api.encoding.e5_small import E5SmallEncoder
from bot_api.knowledge.blocks import Block, Extracted
from bot_api.knowledge.index import IndexedDocument, KnowledgeIndex, passage_terms
from bot_api.knowledge.meaning import encoded_text
from bot_api.knowledge.passages import passages_of

PARAGRAPHS = (
    "The shop on Main Street opens at nine in the morning and closes at six in the "
    "evening. On Sundays it stays closed all day.",
    "Goods bought in the shop may be returned within thirty days with their receipt. "
    "A refund is paid to the card the goods were bought with.",
    "Parcels are delivered by courier within two working days. Delivery is free for "
    "orders above fifty euros.",
    "Our bakery corner sells fresh bread every morning. The croissants are baked on site.",
)


@functools.cache
def encoder() -> E5SmallEncoder:
    return E5SmallEncoder()


def document(with_vectors: bool) -> IndexedDocument:
    passages = passages_of(Extracted(tuple(Block(p) for p in PARAGRAPHS)), "shop", "english")
    vectors = None
    if with_vectors:
        vectors = encoder().passages([encoded_text(p, "Shop guide") for p in passages])
    return IndexedDocument(
        citation=Citation(document_id="shop", title="Shop guide"),
        passages=passages,
        terms=tuple(passage_terms("english", p, "Shop guide") for p in passages),
        vectors=vectors,
    )


@pytest.fixture(scope="module")
def index() -> KnowledgeIndex:
    return KnowledgeIndex.build("english", [document(with_vectors=True)])


def test_a_paraphrase_sharing_no_word_is_answered_by_meaning(index: KnowledgeIndex) -> None:
    question = "can I bring back something I purchased?"
    lexical = index.answer(question, 0.5, debug=True)
    assert lexical.answer is None  # its words are not in the passages
    turn = index.answer(question, 0.5, debug=True, encoder=encoder())
    assert turn.answer is not None
    assert "returned within thirty days" in turn.answer.passage
    assert turn.answer.score >= turn.threshold
    assert all(r.meaning is not None for r in turn.ranked)
    assert turn.ranked[0].passage_id == turn.answer.passage_id


def test_an_unrelated_question_is_refused_on_the_blend(index: KnowledgeIndex) -> None:
    turn = index.answer("how far away is the moon from the earth", 0.5, True, encoder())
    assert turn.answer is None
    assert turn.ranked and turn.ranked[0].meaning is not None
    best = turn.ranked[0]
    assert index.blend.share * best.lexical + (1 - index.blend.share) * best.meaning < (
        turn.threshold
    )


def test_a_german_question_of_an_english_story_answering_any_language(
    index: KnowledgeIndex,
) -> None:
    question = "Wie lange dauert die Lieferung eines Pakets?"
    turn = index.answer(question, 0.5, True, encoder(), any_language=True)
    assert turn.answer is not None
    assert "two working days" in turn.answer.passage
    assert all(r.score == r.meaning for r in turn.ranked)  # by meaning alone
    assert "two working days" in turn.answer.answer  # the sentence chosen by meaning
    elsewhere = index.answer(question, 0.5, True, encoder(), any_language=False)
    assert all(r.score != r.meaning for r in elsewhere.ranked)


def test_without_every_vector_the_index_answers_lexically() -> None:
    index = KnowledgeIndex.build(
        "english", [document(with_vectors=True), document(with_vectors=False)]
    )
    assert index.vectors is None
    turn = index.answer("how many days do I have to return goods", 0.5, True, encoder())
    assert turn.answer is not None and "thirty days" in turn.answer.answer
    assert all(r.meaning is None for r in turn.ranked)
