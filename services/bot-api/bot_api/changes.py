"""What a successful management write changed, and who hears of it, in which order.

The management use cases announce each change once its database write succeeded. The
table `HEARD_BY` says which handlers hear each kind of change, in order: the outbox
publisher first (other replicas and integrations-api learn of it through the stream),
then this process's own copies and follow-ups (the story cache, so the next /query
answers with the edit; phrase vectors; conversation tests; the inbox). The database's
data of a story never hangs on a handler: a story's deletion removes all of it first,
in one function (`StoryService.delete`).
"""

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from bot_api.domain.desk import DeskEntry
from bot_api.metrics import CHANGE_HANDLER_FAILURES


@dataclass(frozen=True)
class StoryCreated:
    account_id: str
    story_id: str


@dataclass(frozen=True)
class StoryEdited:
    """The story's fields or structure changed, and the listed interactions' content."""

    account_id: str
    story_id: str
    interaction_ids: frozenset[str] = frozenset()
    language_changed: bool = False
    """Its `language` or `answerAnyLanguage` changed: another model may read its phrases
    now (this process only; other replicas compile the story again anyway)."""


@dataclass(frozen=True)
class StoryDeleted:
    account_id: str
    story_id: str


@dataclass(frozen=True)
class EntitiesEdited:
    account_id: str
    remote: bool = False
    """Heard from another replica (messaging.story_events), not made here: the phrase
    vectors its new entity values give are that replica's to encode."""


@dataclass(frozen=True)
class HandoffMessageSent:
    """A person wrote to a user whose conversation they have (docs/api.md "Handoffs")."""

    account_id: str
    story_id: str
    session_id: str
    text: str


@dataclass(frozen=True)
class DeskLinesAdded:
    """A handed-over conversation has new lines (the user's message, the bot's answer
    that handed over, a person's message, a note): the agent desks open on the story
    show them (docs/teams.md "The agent desk"). `list_changed`: the story's open handoffs
    changed too (one opened, was taken over or given back)."""

    account_id: str
    story_id: str
    session_id: str
    entries: tuple[DeskEntry, ...]
    list_changed: bool = False


@dataclass(frozen=True)
class ConversationErased:
    """A conversation's turns were erased (docs/history.md): what keeps a copy of them,
    the misses inbox, lets it go."""

    account_id: str
    story_id: str
    session_id: str


@dataclass(frozen=True)
class KnowledgeEdited:
    """A story's documents or FAQ pairs changed (docs/knowledge.md)."""

    account_id: str
    story_id: str


Change = (
    StoryCreated
    | StoryEdited
    | StoryDeleted
    | EntitiesEdited
    | HandoffMessageSent
    | DeskLinesAdded
    | ConversationErased
    | KnowledgeEdited
)


class ChangeListener(Protocol):
    async def changed(self, change: Change) -> None: ...


class Handler(Enum):
    """The handlers of changes, by role; `app.py` and `messaging.py` give each its object."""

    PUBLISHER = "publisher"
    """`messaging.EventPublisher`: the change's event into the outbox (an erasure's too:
    the other replicas' inboxes let the conversation go)."""
    STORY_CACHE = "story cache"
    """`story_cache.cache.StoryCache`: drops or marks what it compiled."""
    WRITTEN_PHRASES = "written phrases"
    """`story_cache.written.WrittenPhrases`: queues the phrases written for their vectors
    (the semantic stage only)."""
    VECTOR_SWEEPER = "vector sweeper"
    """`story_cache.sweep.VectorSweeper`: forgets the story's queued phrases and, a while
    later, takes it off the vectors it no longer uses (the semantic stage only)."""
    CONVERSATION_TESTS = "conversation tests"
    """`story_tests.service.ConversationTestService`: runs an edited story's
    tests; a deleted story's pending run is cancelled."""
    KNOWLEDGE = "knowledge"
    """`knowledge.cache.KnowledgeCache`: drops the story's index, read anew on its next
    question."""
    DESK = "desk"
    """`handoffs.live.DeskStreams`: hands the line to this process's open desk streams."""
    INBOX = "inbox"
    """`inbox.service.InboxService`: forgets the story's clusters, suggestions and
    the turns it keeps (an erased conversation's)."""


HEARD_BY: Mapping[type[Change], tuple[Handler, ...]] = {
    StoryCreated: (
        Handler.PUBLISHER,
        Handler.STORY_CACHE,
        Handler.WRITTEN_PHRASES,
        Handler.CONVERSATION_TESTS,
    ),
    StoryEdited: (
        Handler.PUBLISHER,
        Handler.STORY_CACHE,
        Handler.WRITTEN_PHRASES,
        Handler.VECTOR_SWEEPER,
        Handler.CONVERSATION_TESTS,
    ),
    StoryDeleted: (
        Handler.PUBLISHER,
        Handler.STORY_CACHE,
        Handler.WRITTEN_PHRASES,
        Handler.VECTOR_SWEEPER,
        Handler.CONVERSATION_TESTS,
        Handler.INBOX,
        Handler.KNOWLEDGE,
    ),
    EntitiesEdited: (Handler.PUBLISHER, Handler.STORY_CACHE, Handler.VECTOR_SWEEPER),
    HandoffMessageSent: (Handler.PUBLISHER,),
    DeskLinesAdded: (Handler.PUBLISHER, Handler.DESK),
    ConversationErased: (Handler.PUBLISHER, Handler.INBOX),
    KnowledgeEdited: (Handler.PUBLISHER, Handler.KNOWLEDGE),
}
"""Which handlers hear each kind of change, in the order they run. The publisher is
first: what follows cannot keep the event from the outbox."""

log = logging.getLogger(__name__)


class ChangeFeed:
    """Runs `HEARD_BY`: every handler of a change runs, in order, whatever the others do.

    A handler other than the publisher that raises is logged and counted
    (`parley_change_handler_failures`) and the next one runs: its work is this process's
    own (a cache, a queue), which the database never waits for. The publisher raising
    means the event is not in the outbox: the other handlers still run (the write is
    stored, this process follows it), then `announce` raises that error, so the request
    that made the change fails (a 5xx) instead of answering as if the others knew.
    A role without a handler (a process without the semantic stage, a test) is skipped.
    """

    def __init__(self) -> None:
        self._handlers: dict[Handler, ChangeListener] = {}

    def handle(self, role: Handler, handler: ChangeListener) -> None:
        """`handler` hears, from now on, the changes `HEARD_BY` lists for `role`."""
        if role in self._handlers:
            raise ValueError(f"the {role.value} handler is given already")
        self._handlers[role] = handler

    async def announce(self, change: Change) -> None:
        kind = type(change).__name__
        unpublished: Exception | None = None
        for role in HEARD_BY[type(change)]:
            handler = self._handlers.get(role)
            if handler is None:
                continue
            try:
                await handler.changed(change)
            except Exception as error:
                log.exception("the %s handler of %s failed: %s", role.value, kind, change)
                CHANGE_HANDLER_FAILURES.labels(kind, role.value).inc()
                if role is Handler.PUBLISHER:
                    unpublished = error
        if unpublished is not None:
            raise unpublished
