"""What a successful management write changed, told to whoever keeps a copy.

Handlers report changes after the database write succeeded; the story cache of this
process listens (so the next /query answers with the edit), and so does the NATS
publisher (so other replicas and integrations-api learn of it).
"""

from collections.abc import Iterable
from typing import Protocol


class ChangeListener(Protocol):
    def story_changed(
        self, account_id: str, story_id: str, interaction_ids: frozenset[str]
    ) -> None:
        """The story's fields or structure changed, and the listed interactions' content."""

    def story_removed(self, account_id: str, story_id: str) -> None: ...

    def stories_listed(self, account_id: str) -> None:
        """A story was created or deleted: the account's list of stories changed."""

    def entities_changed(self, account_id: str) -> None: ...


class Changes:
    def __init__(self) -> None:
        self._listeners: list[ChangeListener] = []

    def listen(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    async def story_changed(
        self, account_id: str, story_id: str, interaction_ids: Iterable[str] = ()
    ) -> None:
        changed = frozenset(interaction_ids)
        for listener in self._listeners:
            await listener.story_changed(account_id, story_id, changed)

    async def story_created(self, account_id: str, story_id: str) -> None:
        for listener in self._listeners:
            await listener.story_changed(account_id, story_id, frozenset())
            await listener.stories_listed(account_id)

    async def story_deleted(self, account_id: str, story_id: str) -> None:
        for listener in self._listeners:
            await listener.story_removed(account_id, story_id)
            await listener.stories_listed(account_id)

    async def entities_changed(self, account_id: str) -> None:
        for listener in self._listeners:
            await listener.entities_changed(account_id)
