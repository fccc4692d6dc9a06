"""FAQ pairs uploaded as CSV (knowledge/faq.py)."""

import pytest

from bot_api.knowledge.faq import MAX_ROWS, faq_of_csv
from bot_api.knowledge.service import Question
from shared.errors import ValidationFailed


def test_pairs_with_alternatives_from_a_spreadsheet_export() -> None:
    content = (
        "\ufeffQuestion,Answer,Alternatives\n"
        '"Do you deliver, on Saturdays?",Yes.,weekend delivery | saturday delivery\n'
        "Can I pay by card?,All cards.,\n"
    ).encode()
    assert faq_of_csv(content) == (
        Question(
            "Do you deliver, on Saturdays?", "Yes.", ("weekend delivery", "saturday delivery")
        ),
        Question("Can I pay by card?", "All cards.", ()),
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"q,a\nx,y\n", "header must name question and answer"),
        (b"question,answer\n", "holds no FAQ pairs"),
        (b"question,answer\nx,\n", "needs a question and an answer"),
        (b"question,answer\n\xff\xfe,x\n", "not UTF-8"),
        (b"question,answer\n" + b"q,a\n" * (MAX_ROWS + 1), f"at most {MAX_ROWS}"),
    ],
)
def test_a_bad_csv_is_refused_saying_why(content: bytes, said: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        faq_of_csv(content)
    assert said in str(refused.value.errors)
