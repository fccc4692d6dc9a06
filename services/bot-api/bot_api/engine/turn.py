"""What crosses the engine's boundary: the turn a client asked for, the session state
carried from turn to turn, and the outcome of a turn (rendered for HTTP by
`bot_api.query.answer_body`, stored by `bot_api.query.repository`)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot_api.domain.history import OutcomeKind, Person, ScoredCandidate
from bot_api.domain.interactions import FALLBACK, Interaction
from bot_api.domain.knowledge import KnowledgeTurn
from bot_api.domain.responses import Block, FulfillmentItem
from bot_api.engine.entities import Mention
from bot_api.engine.fulfillment import Choose, fulfillment
from bot_api.engine.semantic import Vectors


@dataclass(frozen=True)
class ActiveContext:
    id: str
    lifespan: int


@dataclass(frozen=True)
class Pending:
    """A required parameter being asked for."""

    interaction_id: str
    alias: str
    failures: int = 0


@dataclass(frozen=True)
class HandedOver:
    """A person has the conversation (docs/api.md "Handoffs"): the bot stays silent and the
    user's messages go to the story's webhook connection `connection`."""

    connection: str
    since: datetime
    last_message_at: datetime
    """The last message either side sent: the handoff idle since is given back."""
    user_name: str | None = None
    """The user's name as their channel gave it (docs/teams.md "The agent desk")."""
    source: str | None = None
    """The session's `default_source` when it was handed over (`telegram`, `widget`...)."""
    taken_by: Person | None = None
    """Who at the desk took the conversation over (None: nobody yet)."""


@dataclass(frozen=True)
class SessionState:
    contexts: tuple[ActiveContext, ...] = ()
    parameters: Mapping[str, Any] = field(default_factory=dict)
    pending: Pending | None = None
    collected_by: Mapping[str, str] = field(default_factory=dict)
    """Parameter alias -> the interaction that collected its value from what the user
    said; values the client or a webhook supplied are nobody's."""
    handoff: HandedOver | None = None

    def with_parameters(self, parameters: Mapping[str, Any]) -> "SessionState":
        """The state with the turn's final parameters (a webhook's attributes merged in):
        a value replaced since it was collected is nobody's any more."""
        collected_by = {
            alias: interaction_id
            for alias, interaction_id in self.collected_by.items()
            if parameters.get(alias) == self.parameters.get(alias)
        }
        return replace(self, parameters=dict(parameters), collected_by=collected_by)


@dataclass(frozen=True)
class Turn:
    """What the client asked, as validated: exactly one of query, trigger and goto."""

    query: str | None = None
    trigger: str | None = None
    goto: str | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    confidence: float | None = None
    lifespan: int | None = None
    reset: bool = False
    debug: bool = False
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When the message arrived: what built-in dates ("tomorrow") are resolved against."""
    truncated: bool = False
    """The user said more than /query takes (a channel's message: Telegram's are up to
    4,096 characters): `query` is the first QUERY_CHARACTERS of it."""
    user_name: str | None = None
    """The user's name as their channel gave it (a channel's turn only), which the agent
    desk shows for the session."""


@dataclass(frozen=True)
class OutcomeContext:
    """An active context as a turn reports it."""

    id: str
    name: str
    lifespan: int


@dataclass(frozen=True)
class Candidate:
    """An interaction the message was scored against, for `debug`."""

    id: str
    name: str
    score: float
    centroid: float
    closest_phrase: float
    phrase: str
    tier: str
    lexical: float | None = None
    """With the semantic stage: the lexical stage's score (None: it answered alone)."""
    semantic: float | None = None
    """The semantic similarity (None: the stage did not run, or no vectors yet)."""


@dataclass(frozen=True)
class Debug:
    words: tuple[str, ...]
    entities: tuple[Mention, ...]
    confidence: float
    candidates: tuple[Candidate, ...]
    decision: str


@dataclass(frozen=True)
class Outcome:
    """What one turn answered."""

    story_id: str
    interaction: Interaction | None
    score: float
    threshold: float
    lifespan: int
    incomplete: bool
    parameters: Mapping[str, Any]
    contexts: tuple[OutcomeContext, ...]
    fulfillment: tuple[FulfillmentItem, ...]
    source: str = "agent"
    """`webhook` once a webhook answer supplied fulfillment."""
    debug: Debug | None = None
    top: tuple[ScoredCandidate, ...] = ()
    """The best candidates of the message with their scores (`TOP_CANDIDATES` of
    engine.explanations), debug or not."""
    vector: Vectors | None = field(default=None, compare=False)
    """The message's sentence vector when the semantic stage encoded it (an array: not
    compared, as `==` on arrays has no single truth)."""
    vector_model: str | None = None
    """The model that made `vector`: a story's vectors are compared only with those of
    the same model."""
    handoff: HandedOver | None = None
    """The handoff the session is in after this turn (engine/handoff.py)."""
    knowledge: KnowledgeTurn | None = None
    """What the story's documents made of a turn no interaction answered (its answer,
    when one was good enough, is the fulfillment; docs/knowledge.md)."""
    language: str = ""
    """The ISO 639-1 code of the story language the message was read in (docs/languages.md);
    "" in a story of one language, whose turns read as before languages existed."""
    answered_in: str = ""
    """The language the interaction's answer is in: `language` where it has a variant in
    it, else the story's default."""
    silence: tuple[FulfillmentItem, ...] = ()
    """The story's fallback text, said if the turn ends with no fulfillment: left here by
    an interaction that says nothing of its own but has a webhook, whose answer (or
    failure) decides (`spoken`; docs/query.md "Silent answers")."""

    def spoken(self) -> "Outcome":
        """The outcome saying its `silence` if it says nothing else."""
        if not self.silence:
            return self
        return replace(self, fulfillment=self.fulfillment or self.silence, silence=())

    def with_webhook_answer(
        self, responses: Sequence[Block], attributes: Mapping[str, str], choose: Choose
    ) -> "Outcome":
        """The answer's responses after the interaction's own, its attributes filling or
        replacing parameters (and filling the answer's placeholders)."""
        parameters = {**self.parameters, **attributes}
        items = fulfillment(responses, parameters, choose)
        return replace(
            self,
            source="webhook" if items else self.source,
            parameters=parameters,
            fulfillment=(*self.fulfillment, *items),
        ).spoken()


def outcome_kind(turn: Turn, outcome: Outcome) -> OutcomeKind:
    """How /metrics counts a turn and the history files it: `handoff` while a person has
    the conversation (a user's message delivered to them, or the person's message)."""
    if outcome.handoff is not None and outcome.interaction is None:
        return "handoff"
    if turn.trigger is not None:
        return "trigger"
    if turn.goto is not None:
        return "goto"
    if outcome.incomplete:
        return "incomplete"
    if outcome.knowledge is not None and outcome.knowledge.answer is not None:
        return "knowledge"
    if outcome.interaction is None or outcome.interaction.kind == FALLBACK:
        return "fallback"
    return "matched"


def in_zone(moment: datetime, *names: object) -> datetime:
    """`moment` in the first of the timezones `names` that is one (a name that is no IANA
    timezone is not), else in UTC."""
    zone = next((z for z in map(_zone, names) if z is not None), None)
    return moment.astimezone(zone or UTC)


def _zone(name: object) -> ZoneInfo | None:
    if not isinstance(name, str) or not name:
        return None
    try:
        return ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        return None
