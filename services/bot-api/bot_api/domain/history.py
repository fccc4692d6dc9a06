"""A recorded /query turn (issue 18: history, the misses inbox, analytics).

The one value every part of the learning loop shares: the recorder writes it
(`history/recorder.py`, collection `turns`), the history API reads it back, the
inbox clusters the turns that fell back or matched close to the threshold, and the
analytics counters are updated from each batch written (`TurnListener`).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from bot_api.domain.knowledge import Generation

OutcomeKind = Literal[
    "matched", "fallback", "incomplete", "trigger", "goto", "handoff", "knowledge"
]
"""As `parley_query_outcomes_total` counts them (bot_api.metrics.record_query)."""


@dataclass(frozen=True)
class AnsweredBy:
    id: str
    name: str
    type: str
    """The interaction's type: `standard`, `welcome` or `fallback`."""


@dataclass(frozen=True)
class ScoredCandidate:
    id: str
    name: str
    score: float


@dataclass(frozen=True)
class Resolution:
    """Who took a missed turn out of the inbox, and how."""

    by: str
    """The account id whose developer token resolved it."""
    action: Literal["assigned", "created", "ignored"]
    at: datetime
    interaction_id: str | None = None


@dataclass(frozen=True)
class KnowledgeSource:
    """Where a knowledge answer came from (docs/knowledge.md): the document, the passage
    (or FAQ pair) and its score."""

    document_id: str
    title: str
    passage_id: str
    score: float


@dataclass(frozen=True)
class Person:
    """Someone at the agent desk (docs/teams.md "The agent desk"), as the history and the
    desk's transcript name them."""

    name: str
    role: str
    member_id: str | None = None
    """The account member (None: the account's developer token, no member)."""


@dataclass(frozen=True)
class TurnRecord:
    account_id: str
    story_id: str
    session_id: str
    at: datetime
    outcome: OutcomeKind
    query: str | None = None
    """The message as stored: redacted when the story's `redact` setting is on."""
    trigger: str | None = None
    goto: str | None = None
    interaction: AnsweredBy | None = None
    score: float = 0.0
    threshold: float = 0.0
    candidates: tuple[ScoredCandidate, ...] = ()
    parameters: Mapping[str, Any] = field(default_factory=dict)
    contexts: tuple[str, ...] = ()
    fulfillment: str = ""
    """A short summary of what the bot said (the texts, joined, cut to 500 characters)."""
    webhook: str | None = None
    """None: no webhook; else `ok` or the failure kind."""
    latency_ms: float = 0.0
    default_source: str | None = None
    default_language: str | None = None
    language: str | None = None
    """The ISO 639-1 code of the story language the message was read in
    (docs/languages.md); None in a story of one language, whose turns record none."""
    answered_in: str | None = None
    """The language of the answer (`result.answeredIn`): `language` where the interaction
    has a variant in it, else the story's default; None with `language`."""
    vector: tuple[float, ...] | None = None
    """The message's sentence vector when the semantic stage encoded it."""
    vector_model: str | None = None
    """The model that made `vector`."""
    resolution: Resolution | None = None
    truncated: bool = False
    """The message was longer than /query takes (a channel's): `query` holds its first
    2,048 characters, what was matched."""
    channel: str | None = None
    """The id of the channel (integrations-api) that carried the turn; None for /query."""
    knowledge: KnowledgeSource | None = None
    """The story's documents answered (outcome `knowledge`): from where."""
    test: bool = False
    """The console's test chat asked it (`is_test_chat`): kept out of the misses inbox and
    of the analytics' default figures."""
    person: Person | None = None
    """Who at the desk wrote the turn (a person's message during a handoff), took the
    conversation over or gave it back; None for the user's and the bot's turns."""
    given_back: bool = False
    """The turn is the conversation going back to the bot: its fulfillment is what the
    user was told (the story's `handoffReturnMessage`)."""
    taken_over: bool = False
    """The turn is `person` taking the conversation over: it says nothing to the user,
    and is kept so that the desk's transcript, read again, and History show who took it
    and when."""
    generation: Generation | None = None
    """How the LLM was asked to write the turn's knowledge answer, if it was: outcome,
    time and tokens (docs/knowledge-generation.md)."""


TEST_CHAT_SOURCE = "console"
"""The `default_source` the console's test chat sends (console/static/console/chat.js)."""


def is_test_chat(*, developer: bool, default_source: str | None) -> bool:
    """A turn is the test chat's when it came with the developer token (the public key,
    in every page that embeds the bot, cannot mark its turns as tests) and says it comes
    from the console."""
    return developer and default_source == TEST_CHAT_SOURCE


class TurnListener(Protocol):
    """Told of every batch of turns once it is stored (the analytics counters)."""

    async def turns_written(self, turns: Sequence[TurnRecord]) -> None: ...
