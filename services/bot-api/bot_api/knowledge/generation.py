"""A knowledge answer written by the deployment's LLM from the passages found, for a
story that turns `generateKnowledgeAnswers` on (docs/knowledge-generation.md).

The extractive answer is found first (cache.py, index.py); the LLM is then given the
question and the `GIVEN_PASSAGES` best passages, numbered, and told to answer from them
alone and cite them as `[1]`, `[2]`. An answer citing none of them, citing a number it
was not given, empty, an HTTP error, a malformed answer or one not read whole within
`LLM_TIMEOUT_SECONDS` sends the extractive answer instead, counted by reason. An FAQ
pair's answer is its author's and is sent as written. The question is redacted by the
story's rules (domain/redaction.py) before it leaves the process, as the history would
store it; the passages are the story's own documents and are sent as they are.
"""

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot_api.domain.knowledge import Citation, Generation, KnowledgeAnswer, KnowledgeTurn
from bot_api.domain.redaction import phone_region, redact
from bot_api.domain.responses import Text
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import Outcome, Turn
from bot_api.knowledge.cache import KnowledgeCache
from bot_api.knowledge.completions import ChatCompletions, Message, NotWritten, Written
from bot_api.knowledge.index import KnowledgeIndex
from bot_api.knowledge.passages import one_line
from bot_api.metrics import record_generation

log = logging.getLogger(__name__)

GIVEN_PASSAGES = 3
"""The best passages the LLM is given: the one the extractive answer is in and two
more, for a question whose answer spans passages, in some 600 prompt tokens."""
SYSTEM_PROMPT = (
    "You answer the user's question using only the numbered passages given with it. "
    "Cite every passage you use by its number in square brackets, such as [1] or [2]. "
    "Do not use anything you know besides the passages. If they do not answer the "
    "question, say so and cite nothing. Answer in the language of the question, in at "
    "most three sentences."
)
CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
"""`[2]`, or several numbers in one mark: `[1, 3]`."""


@dataclass(frozen=True)
class GivenPassage:
    passage_id: str
    text: str
    citation: Citation
    score: float


async def generated_outcome(
    llm: ChatCompletions,
    knowledge: KnowledgeCache,
    account_id: str,
    story: CompiledStory,
    turn: Turn,
    outcome: Outcome,
    version_id: str | None = None,
) -> Outcome:
    """The outcome with its knowledge answer written by the LLM when the story asks for
    it and the LLM gave a cited one; else with the extractive answer as it was (and how
    the LLM failed, in `generation`). `version_id`: the version answering, whose
    documents the cache answered from."""
    known = outcome.knowledge
    settings = story.settings
    if (
        not settings.generate_knowledge_answers
        or turn.query is None
        or known is None
        or known.answer is None
        or known.answer.question is not None  # an FAQ pair's author wrote its answer
    ):
        return outcome
    index = await knowledge.index(account_id, story.id, settings.language, version_id)
    passages = given_passages(index, known)
    question = (
        redact(turn.query, phone_region(settings.language)) if settings.redact else turn.query
    )
    written = await generated(llm, question, known, passages)
    answer = written.answer
    if answer is None or not answer.generated:
        return replace(outcome, knowledge=written)
    return replace(outcome, knowledge=written, fulfillment=(Text(answer.answer),))


def given_passages(index: KnowledgeIndex, known: KnowledgeTurn) -> tuple[GivenPassage, ...]:
    """The best passages of the question, as the index ranked them for its answer (by
    meaning too where the story's vectors are in)."""
    ranked = known.ranked
    wanted = {p.passage_id: p for p in ranked[:GIVEN_PASSAGES]}
    given = []
    for passage_id, ranked_passage in wanted.items():
        passage = index.passage(passage_id)
        if passage is None:
            continue
        given.append(
            GivenPassage(
                passage_id, one_line(passage.text), index.cited(passage), ranked_passage.lexical
            )
        )
    return tuple(given)


async def generated(
    llm: ChatCompletions,
    question: str,
    turn: KnowledgeTurn,
    passages: Sequence[GivenPassage],
) -> KnowledgeTurn:
    """`turn` with its answer written by the LLM from `passages`, or the extractive
    answer with the reason it was kept, all within the LLM's timeout."""
    extractive = turn.answer
    if extractive is None or not passages:
        return turn
    started = time.perf_counter()
    written: Written | None = None
    try:
        async with asyncio.timeout(llm.timeout_seconds):
            written = await llm.write(messages(question, passages))
        answer = cited_answer(extractive, written.text, passages)
        outcome = "generated"
    except NotWritten as failure:
        answer, outcome = extractive, failure.reason
    except TimeoutError:
        answer, outcome = extractive, "timeout"
    seconds = time.perf_counter() - started
    prompt_tokens = 0 if written is None else written.prompt_tokens
    completion_tokens = 0 if written is None else written.completion_tokens
    record_generation(outcome, seconds, prompt_tokens, completion_tokens)
    if outcome != "generated":
        log.info("the extractive knowledge answer was sent: the LLM's %s", outcome)
    generation = Generation(outcome, round(seconds, 4), prompt_tokens, completion_tokens)
    return replace(turn, answer=replace(answer, generation=generation))


def messages(question: str, passages: Sequence[GivenPassage]) -> list[Message]:
    numbered = "\n\n".join(
        f"[{number}] ({' > '.join((p.citation.title, *p.citation.heading))}) {p.text}"
        for number, p in enumerate(passages, start=1)
    )
    return [
        Message("system", SYSTEM_PROMPT),
        Message("user", f"Question: {question}\n\nPassages:\n\n{numbered}"),
    ]


def cited_answer(
    extractive: KnowledgeAnswer, text: str, passages: Sequence[GivenPassage]
) -> KnowledgeAnswer:
    """The answer the LLM wrote, its marks numbered anew in the order it cites the
    passages (`[1]` is `cites[0]`), the first one cited its passage and citation;
    NotWritten when it is empty, cites nothing or cites a number it was not given."""
    text = text.strip()
    if not text:
        raise NotWritten("empty")
    order: list[int] = []
    for mark in CITATION.finditer(text):
        for number in (int(n) for n in mark.group(1).split(",")):
            if not 1 <= number <= len(passages):
                raise NotWritten("miscited", str(number))
            if number not in order:
                order.append(number)
    if not order:
        raise NotWritten("uncited")
    renumbered = {number: position for position, number in enumerate(order, start=1)}
    text = CITATION.sub(
        lambda mark: "".join(f"[{renumbered[int(n)]}]" for n in mark.group(1).split(",")), text
    )
    first = passages[order[0] - 1]
    return replace(
        extractive,
        citation=first.citation,
        answer=text,
        passage=first.text,
        score=first.score,
        passage_id=first.passage_id,
        generated=True,
        cites=tuple(passages[n - 1].passage_id for n in order),
    )
