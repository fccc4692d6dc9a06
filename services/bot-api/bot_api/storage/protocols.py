"""What the layers above storage need of each repository: the MongoDB repositories
satisfy these, and so can an in-memory stand-in, so management, the story cache and
deliveries can be exercised without a database."""

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from bot_api.domain.conversation_tests import ConversationTest, StoredTest, TestRun
from bot_api.domain.entities import Entity
from bot_api.domain.history import Resolution, TurnRecord
from bot_api.domain.interactions import Interaction
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.engine.clustering import Miss
from bot_api.engine.semantic import StoredVectors, Vectors
from bot_api.engine.turn import SessionState
from bot_api.storage.connections import Connection
from bot_api.storage.entities import StoredEntity
from bot_api.storage.inbox_snapshots import InboxSnapshot
from bot_api.storage.interactions import InteractionSummary
from bot_api.storage.sessions import OpenHandoff, StoredSession
from bot_api.storage.stories import StoryFields, StoryRecord
from bot_api.storage.turns import ConversationFilter, ConversationPage, StoredTurn
from bot_api.storage.versions import StoryVersion, VersionSummary
from shared.events import ConnectionChanged
from shared.pages import EVERY_ITEM, Page


class Indexed(Protocol):
    async def ensure_indexes(self) -> None: ...


class StoryStore(Indexed, Protocol):
    async def insert(
        self,
        story_id: str,
        account_id: str,
        name: str,
        description: str,
        settings: Settings,
        structure: Structure,
        phrases: int,
    ) -> None:
        """`phrases`: how many user-says phrases the structure's interactions hold."""

    async def list(self, account_id: str, page: Page) -> list[dict[str, Any]]:
        """`_id`, `name` and `description` of a page of the account's stories, oldest
        first."""

    async def count(self, account_id: str) -> int: ...

    async def get(self, account_id: str, story_id: str) -> StoryRecord | None: ...

    async def update(
        self,
        story: StoryRecord,
        changes: StoryFields | None = None,
        structure: Structure | None = None,
        added_phrases: int = 0,
    ) -> bool:
        """False when the story's revision is no longer `story.revision`. The phrase
        counter changes by `added_phrases` only if the story has one."""

    async def add_interaction(
        self, story: StoryRecord, interaction_id: str, parent_id: str | None, phrases: int
    ) -> bool:
        """`update` with the structure `story.structure` plus a new root (`parent_id`
        None) or a new child of `parent_id`, holding `phrases`."""

    async def add_phrases(self, story: StoryRecord, added: int) -> None:
        """The phrase counter, if the story has one, changes by `added`; the revision
        stays."""

    async def set_phrases(self, story: StoryRecord, phrases: int) -> bool:
        """The phrase counter becomes `phrases` (and the revision goes up), unless the
        revision or the counter (or its absence) is no longer what `story` holds."""

    async def delete(self, account_id: str, story_id: str) -> bool: ...


class InteractionStore(Indexed, Protocol):
    async def insert_many(
        self, account_id: str, story_id: str, interactions: Sequence[Interaction]
    ) -> None: ...

    async def with_triggers(self, story_id: str, triggers: list[str]) -> dict[str, list[str]]:
        """The triggers of the story's interactions that have any of `triggers`."""

    async def find(self, story_id: str, ids: Iterable[str]) -> dict[str, Interaction]:
        """The story's interactions `ids` (those it has), by id."""

    async def summaries(self, story_id: str, ids: Iterable[str]) -> dict[str, InteractionSummary]:
        """Name and webhook of the story's interactions `ids`, by id, without the rest."""

    async def count_phrases(self, story_id: str, ids: Iterable[str]) -> int:
        """How many user-says phrases the story's interactions `ids` hold."""

    async def get(self, story_id: str, interaction_id: str) -> Interaction | None: ...

    async def replace_content(self, story_id: str, interaction: Interaction) -> None:
        """The story's interaction of that id becomes `interaction` (nothing if it has
        none)."""

    async def delete_many(self, story_id: str, ids: Iterable[str]) -> None: ...

    async def await_connections(self, story_id: str, names: Mapping[str, str]) -> None:
        """Each interaction (by id) is to call the connection of that name once the story
        has one."""

    async def awaited_connections(self, story_id: str) -> dict[str, str]:
        """The connection each interaction awaits, by the interaction's id."""

    async def await_handoffs(self, story_id: str, names: Mapping[str, str]) -> None:
        """Each interaction (by id) is to hand over to the connection of that name once the
        story has one."""

    async def awaited_handoffs(self, story_id: str) -> dict[str, str]:
        """The handoff connection each interaction awaits, by the interaction's id."""

    async def connect_awaiting(self, story_id: str, name: str, connection_id: str) -> list[str]:
        """The interactions awaiting the connection `name` call it now, unless given a
        webhook meanwhile, and those awaiting it as their handoff get a handoff block
        (last), unless given one meanwhile; the ids of those that changed, sorted."""

    async def delete_for_story(self, story_id: str) -> None: ...

    async def using_entity(self, account_id: str, entity: str) -> dict[str, str]:
        """The story id of each of the account's interactions (by id) with a parameter of
        `entity`."""


class EntityStore(Indexed, Protocol):
    async def insert(self, account_id: str, entity: Entity, entity_id: str | None = None) -> str:
        """The new entity's id (`entity_id` when given); Conflict if the account has an
        entity of that name."""

    async def list(self, account_id: str, page: Page = EVERY_ITEM) -> list[StoredEntity]:
        """The account's entities (of `page`, or all), oldest first."""

    async def count(self, account_id: str) -> int: ...

    async def totals(self, account_id: str) -> tuple[int, int]:
        """How many entities the account has, and how many entries they hold."""

    async def get(self, account_id: str, entity_id: str) -> StoredEntity | None: ...

    async def replace(self, account_id: str, entity_id: str, entity: Entity) -> bool:
        """Conflict if another entity of the account has the new name."""

    async def delete(self, account_id: str, entity_id: str) -> bool: ...

    async def with_names(self, account_id: str, names: Iterable[str]) -> Sequence[StoredEntity]:
        """The account's entities of those names."""

    async def existing_names(self, account_id: str, names: Iterable[str]) -> set[str]: ...


class SessionStore(Indexed, Protocol):
    async def load(self, story_id: str, session_id: str) -> StoredSession: ...

    async def save(
        self,
        story_id: str,
        session_id: str,
        read_version: int,
        state: SessionState,
        idle_timeout: timedelta,
    ) -> bool:
        """False when someone saved the session since `read_version`."""

    async def open_handoffs(
        self, story_id: str, active_since: datetime, page: Page
    ) -> tuple[list[OpenHandoff], int]:
        """A page of the story's sessions in a handoff with a message after `active_since`
        and not expired, oldest handoff first, and how many there are in all."""

    async def delete(self, story_id: str, session_id: str) -> bool:
        """Forget the session's state; False when there was none."""

    async def delete_for_story(self, story_id: str) -> None: ...


class ConnectionView(Indexed, Protocol):
    async def apply(self, event: ConnectionChanged) -> None:
        """Keep the event unless the view holds the same or a newer revision."""

    async def names(self, account_id: str, story_id: str, ids: Iterable[str]) -> dict[str, str]:
        """The name of each of the story's connections among `ids`, by id."""

    async def for_webhook(
        self, account_id: str, story_id: str, webhook: str
    ) -> Connection | None: ...

    async def delete_for_story(self, account_id: str, story_id: str) -> None: ...


class VersionStore(Indexed, Protocol):
    async def add(self, version: StoryVersion) -> StoryVersion:
        """Stored under the story's next number (1 for its first): the version as stored.
        `storage.versions.NumberTaken` if other freezes keep taking the number."""

    async def list(self, account_id: str, story_id: str, page: Page) -> list[VersionSummary]:
        """A page of the story's versions, newest first."""

    async def count(self, account_id: str, story_id: str) -> int: ...

    async def get(self, account_id: str, story_id: str, version_id: str) -> StoryVersion | None: ...

    async def delete(self, account_id: str, story_id: str, version_id: str) -> bool: ...

    async def delete_for_story(self, account_id: str, story_id: str) -> None: ...


class VectorStore(Indexed, Protocol):
    async def take(self, story_id: str, keys: Iterable[str]) -> dict[str, StoredVectors]: ...

    async def put(self, model_id: str, story_id: str, vectors: Mapping[str, Vectors]) -> None: ...

    async def sweep(self, story_id: str, keep: set[str], limit: int) -> int: ...


class TurnStore(Indexed, Protocol):
    async def insert_many(self, turns: Sequence[StoredTurn]) -> None:
        """The turns and their conversations' summaries; a turn already stored (a batch
        tried again) is not stored twice."""

    async def conversations_page(
        self, story_id: str, found: ConversationFilter, cursor: str | None, limit: int
    ) -> ConversationPage:
        """Newest first (by last turn); ValueError for a cursor it did not write."""

    async def transcript(self, story_id: str, session_id: str) -> list[TurnRecord]:
        """Oldest first, at most `storage.turns.MAX_TRANSCRIPT_TURNS`."""

    def export(
        self, story_id: str, since: datetime | None, until: datetime | None, limit: int
    ) -> AsyncIterator[TurnRecord]:
        """The story's turns in [since, until) (None: unbounded), oldest first."""

    async def delete_conversation(self, story_id: str, session_id: str) -> bool: ...

    async def delete_for_story(self, story_id: str) -> None: ...


class InboxStore(Indexed, Protocol):
    """The misses inbox's reads and writes (storage/inbox.py)."""

    async def unresolved(
        self,
        story_id: str,
        review_below: float,
        model_id: str | None,
        since: datetime | None = None,
    ) -> list[Miss]:
        """The newest unresolved turns (recorded at or after `since`, when given) that fell
        back or matched below `review_below`, newest first, but those whose text the
        story ignored; the newest of each normalised text carries its vector."""

    async def resolve(self, story_id: str, turn_ids: Sequence[str], resolution: Resolution) -> int:
        """Mark these of the story's turns resolved, if not yet; how many were."""

    async def reopen(self, story_id: str, turn_ids: Sequence[str]) -> int:
        """Put these resolved turns of the story back in the inbox, the texts of those
        that were ignored no longer ignored; how many were."""

    async def ignore(self, story_id: str, texts: Iterable[str], by: str, at: datetime) -> None:
        """Remember these texts, normalised, as ignored for the story."""

    async def delete_for_story(self, story_id: str) -> None: ...


class InboxSnapshotStore(Indexed, Protocol):
    """Each story's inbox as last read whole (storage/inbox_snapshots.py)."""

    async def generation(self, story_id: str) -> int:
        """How often the story's inbox changed so far."""

    async def read(self, story_id: str) -> InboxSnapshot | None: ...

    async def write(self, story_id: str, generation: int, payload: bytes) -> bool:
        """Make the payload the story's snapshot if its generation is still `generation`;
        whether it was."""

    async def invalidate(self, story_id: str) -> None:
        """Drop the story's snapshot, and count a change (writes of an older generation fail)."""

    async def delete_for_story(self, story_id: str) -> None: ...


class ConversationTestStore(Indexed, Protocol):
    """A story's conversation tests and their last run (storage/conversation_tests.py);
    every read and write names the account and the story."""

    async def insert(
        self, account_id: str, story_id: str, test: ConversationTest, test_id: str | None = None
    ) -> str:
        """The new test's id (`test_id` when given)."""

    async def insert_many(
        self, account_id: str, story_id: str, tests: Sequence[ConversationTest]
    ) -> None: ...

    async def list(self, account_id: str, story_id: str) -> list[StoredTest]:
        """The story's tests in the order they were made."""

    async def count(self, account_id: str, story_id: str) -> int: ...

    async def get(self, account_id: str, story_id: str, test_id: str) -> StoredTest | None: ...

    async def replace(
        self, account_id: str, story_id: str, test_id: str, test: ConversationTest
    ) -> bool:
        """False: the story has no such test."""

    async def delete(self, account_id: str, story_id: str, test_id: str) -> bool: ...

    async def save_run(self, account_id: str, story_id: str, run: TestRun) -> None:
        """Keep `run` as the story's last, in place of the one before."""

    async def last_run(self, account_id: str, story_id: str) -> TestRun | None: ...

    async def delete_for_story(self, story_id: str) -> None: ...
