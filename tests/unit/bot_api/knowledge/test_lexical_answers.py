"""A story's knowledge answered lexically (knowledge/index.py): FAQ pairs through the
matcher first, then the passage holding enough of the question's weight, its answer
sentence, and a refusal when none does."""

from bot_api.domain.knowledge import Citation
from bot_api.knowledge.blocks import Block, Extracted
from bot_api.knowledge.index import REFUSAL, FaqPair, IndexedDocument, KnowledgeIndex
from bot_api.knowledge.passages import passages_of
from bot_api.knowledge.terms import question_terms

GUIDE = Extracted(
    (
        Block(
            "The shop opens at nine in the morning. It closes at six in the evening.",
            ("Hours",),
        ),
        Block(
            "Goods bought in the shop may be returned within thirty days of their purchase. "
            "Bring the receipt. A refund goes to the card the goods were paid with.",
            ("Returns",),
            4,
        ),
    )
)


def index(*faq: FaqPair) -> KnowledgeIndex:
    guide = IndexedDocument(Citation("guide", "Shop guide"), passages_of(GUIDE, "guide", "english"))
    pairs = IndexedDocument(Citation("faq", "Questions"), faq=faq)
    return KnowledgeIndex.build("english", [guide, pairs])


def test_the_passage_answers_with_its_sentence_heading_and_page() -> None:
    turn = index().answer("how many days do I have to return goods", 0.5, debug=True)
    assert turn.answer is not None
    assert turn.answer.answer == (
        "Goods bought in the shop may be returned within thirty days of their purchase."
    )
    assert turn.answer.citation == Citation("guide", "Shop guide", ("Returns",), 4)
    assert turn.answer.score >= REFUSAL and turn.answer.question is None
    assert turn.ranked[0].passage_id == "guide.1"


def test_a_short_answer_sentence_brings_the_next_one() -> None:
    turn = index().answer("do I need the receipt", 0.5)
    assert turn.answer is not None
    assert (
        turn.answer.answer
        == "Bring the receipt. A refund goes to the card the goods were paid with."
    )


def test_a_question_the_documents_do_not_answer_is_refused_with_what_was_weighed() -> None:
    turn = index().answer("can penguins fly backwards in the evening", 0.5, debug=True)
    assert turn.answer is None and turn.threshold == REFUSAL
    assert turn.ranked and all(p.lexical < REFUSAL for p in turn.ranked)
    assert index().answer("can penguins fly backwards in the evening", 0.5).ranked == ()


def test_an_faq_pair_at_the_confidence_wins_over_the_passages() -> None:
    pair = FaqPair("faq.q0", "When do you open?", "Nine o'clock.", ("opening time",))
    turn = index(pair).answer("when do you open", 0.5)
    assert turn.answer is not None and turn.answer.question == "When do you open?"
    assert turn.answer.answer == "Nine o'clock." and turn.answer.citation.document_id == "faq"
    below = index(pair).answer("when does the shop open in the morning", 0.99)
    assert below.answer is not None and below.answer.question is None


def test_common_words_weigh_less_than_rare_ones() -> None:
    built = index()
    weights = built.weights({"how": 1.0, "penguin": 1.0})
    assert weights["how"] == weights["penguin"]
    said = question_terms("english", "how penguins")
    assert said["how"] < said["penguin"]
