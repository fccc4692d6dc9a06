"""A knowledge answer: what a turn answered from a story's documents or FAQ pairs when
no interaction answered (docs/knowledge.md), with the passages it weighed."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Citation:
    """Where an answer came from: the document, and in it the heading path, page (PDF)
    or address (a fetched page) where known."""

    document_id: str
    title: str
    heading: tuple[str, ...] = ()
    page: int | None = None
    url: str | None = None


@dataclass(frozen=True)
class RankedPassage:
    """A passage weighed for a question, with its scores (for `debug: true`): `lexical`
    is the share of the question's term weight it holds, `meaning` its cosine to the
    question where the passages' vectors have landed, `score` what ranked it."""

    passage_id: str
    document_id: str
    text: str
    score: float
    lexical: float
    meaning: float | None = None


@dataclass(frozen=True)
class Generation:
    """How the deployment's LLM was asked to write an answer (docs/knowledge-generation.md):
    `outcome` is `generated` or why the extractive answer was sent instead (`timeout`,
    `rate_limited`, `http_error`, `unreachable`, `malformed`, `empty`, `uncited`,
    `miscited`); the tokens as the server counted them (0 when it did not say)."""

    outcome: str
    seconds: float
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class KnowledgeAnswer:
    """The answer: `answer` is the sentence that answers (with a neighbour where the
    sentence alone reads short), `passage` the passage it is in; an FAQ pair's answer
    carries the `question` matched. A `generated` answer was written by the LLM from
    the passages it `cites` (their ids, in the order of its `[1]`, `[2]` marks), the
    first of them its `passage`; `generation` says how the LLM was asked, if it was."""

    citation: Citation
    answer: str
    passage: str
    score: float
    passage_id: str
    question: str | None = None
    generated: bool = False
    cites: tuple[str, ...] = ()
    generation: Generation | None = None


@dataclass(frozen=True)
class KnowledgeTurn:
    """What the documents made of a turn: the answer, or None when nothing was good
    enough (the story's fallback answers), and what was weighed."""

    answer: KnowledgeAnswer | None
    ranked: tuple[RankedPassage, ...] = ()
    threshold: float = 0.0
