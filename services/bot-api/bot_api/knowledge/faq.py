"""FAQ pairs uploaded as CSV: a header naming `question` and `answer` (and, if wanted,
`alternatives`, phrasings separated by `|`), then a pair a row, as spreadsheets export
them (UTF-8, with or without its byte-order mark)."""

import csv
import io

from bot_api.knowledge.service import Question
from shared.errors import ValidationFailed

MAX_ROWS = 2000
MAX_CELL = 4000


def faq_of_csv(content: bytes) -> tuple[Question, ...]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationFailed.at(("body",), "the CSV is not UTF-8") from None
    rows = csv.DictReader(io.StringIO(text))
    names = {(n or "").strip().lower(): n for n in rows.fieldnames or ()}
    if "question" not in names or "answer" not in names:
        raise ValidationFailed.at(("body",), "the CSV's header must name question and answer")
    questions: list[Question] = []
    try:
        for number, row in enumerate(rows, start=2):
            if len(questions) == MAX_ROWS:
                raise ValidationFailed.at(("body",), f"at most {MAX_ROWS} FAQ pairs")
            question = (row.get(names["question"]) or "").strip()
            answer = (row.get(names["answer"]) or "").strip()
            if not question or not answer:
                raise ValidationFailed.at(("body", number), "a row needs a question and an answer")
            if len(question) > MAX_CELL or len(answer) > MAX_CELL:
                raise ValidationFailed.at(("body", number), f"a cell is longer than {MAX_CELL}")
            given = (row.get(names["alternatives"]) or "") if "alternatives" in names else ""
            alternatives = tuple(a.strip() for a in given.split("|") if a.strip())
            questions.append(Question(question, answer, alternatives[:50]))
    except csv.Error as error:
        raise ValidationFailed.at(("body",), f"the CSV cannot be read: {error}") from None
    if not questions:
        raise ValidationFailed.at(("body",), "the CSV holds no FAQ pairs")
    return tuple(questions)
