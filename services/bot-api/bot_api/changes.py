"""What a successful management write changed, told to whoever keeps a copy.

The management use cases announce each change once its database write succeeded; the
story cache of this process listens (so the next /query answers with the edit), and so
does the NATS publisher (so other replicas and integrations-api learn of it).
"""

from dataclasses import dataclass
from typing import Protocol


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


@dataclass(frozen=True)
class HandoffMessageSent:
    """A person wrote to a user whose conversation they have (docs/api.md "Handoffs")."""

    account_id: str
    story_id: str
    session_id: str
    text: str


@dataclass(frozen=True)
class ConversationErased:
    """A conversation's turns were erased (docs/history.md): what keeps a copy of them,
    the misses inbox, lets it go."""

    account_id: str
    story_id: str
    session_id: str


Change = (
    StoryCreated
    | StoryEdited
    | StoryDeleted
    | EntitiesEdited
    | HandoffMessageSent
    | ConversationErased
)


class ChangeListener(Protocol):
    async def changed(self, change: Change) -> None: ...


class ChangeFeed:
    def __init__(self) -> None:
        self._listeners: list[ChangeListener] = []

    def listen(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    async def announce(self, change: Change) -> None:
        for listener in self._listeners:
            await listener.changed(change)
