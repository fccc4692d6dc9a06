"""bot-api's repositories in memory (dicts of the typed values they take and return), for
unit tests of the services above them; the repository tests of tests/integration hold
each to the contract of its MongoDB twin (a feature's repository.py): a story update is
conditional on its revision and counts phrases only for a story that has the counter, entity names
are unique per account, a session save is conditional on its version, the connection
view keeps the newest revision.

Every call is written to the database's `journal`, so a test can say what was read and
written, in which order; `meanwhile` makes something happen in the middle of a call, as
another writer (or a failing database) would.
"""

import copy
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from bson import ObjectId
from pymongo.errors import AutoReconnect

from bot_api.connections.repository import Connection
from bot_api.domain.analytics import ANY, BucketKey, Conversation, Segment, SessionKey, Tally
from bot_api.domain.conversation_tests import ConversationTest, StoredTest, TestRun
from bot_api.domain.entities import Entity
from bot_api.domain.history import Resolution, TurnRecord
from bot_api.domain.interactions import Interaction, handoff_block, referenced_entities
from bot_api.domain.responses import Handoff
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.engine.clustering import Miss, normalised
from bot_api.engine.semantic import StoredVectors, Vectors
from bot_api.engine.turn import SessionState
from bot_api.entities.repository import StoredEntity
from bot_api.history.documents import (
    resolution_to_document,
    turn_from_document,
    turn_to_document,
    vector_from_document,
    vector_model,
)
from bot_api.history.repository import (
    MAX_TRANSCRIPT_TURNS,
    ConversationFilter,
    ConversationPage,
    ConversationSummary,
    StoredTurn,
    decode_cursor,
    encode_cursor,
    summary_changes,
)
from bot_api.inbox.repository import MAX_INBOX_TURNS, PROMPT_CONTINUED
from bot_api.inbox.snapshots import MAX_SNAPSHOT_BYTES, InboxSnapshot, decoded
from bot_api.interactions.repository import InteractionSummary
from bot_api.query.repository import OpenHandoff, StoredSession, session_key
from bot_api.stories.repository import StoryFields, StoryRecord
from bot_api.versions.repository import StoryVersion, VersionSummary
from shared.errors import Conflict
from shared.events import ConnectionChanged
from shared.ids import is_object_id, object_id
from shared.pages import EVERY_ITEM, Page
from shared.timeutil import utcnow

Call = tuple[Any, ...]
"""The operation ("stories.get") followed by the ids it was given."""
Action = Callable[[], Awaitable[None]]


class Database:
    def __init__(self) -> None:
        self.journal: list[Call] = []
        self._meanwhile: dict[str, list[Action]] = {}
        self.stories = StoriesInMemory(self)
        self.interactions = InteractionsInMemory(self)
        self.entities = EntitiesInMemory(self)
        self.sessions = SessionsInMemory(self)
        self.connections = ConnectionsInMemory(self)
        self.turns = TurnsInMemory()
        self.versions = VersionsInMemory(self)

    def meanwhile(self, operation: str, action: Action, times: int = 1) -> None:
        """Run `action` at the start of each of the next `times` calls of `operation`
        (say "stories.update"), before the call looks at the data: what another writer
        does between the caller's read and its write. An action that raises makes the
        call fail."""
        self._meanwhile.setdefault(operation, []).extend([action] * times)

    def operations(self) -> list[str]:
        return [call[0] for call in self.journal]

    async def record(self, operation: str, *ids: Any) -> None:
        self.journal.append((operation, *ids))
        pending = self._meanwhile.get(operation)
        if pending:
            await pending.pop(0)()


def _ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids))


def _plus(counter: int | None, added: int) -> int | None:
    """A phrase counter after `added`: a story without one stays without."""
    return None if counter is None else counter + added


class _InMemory:
    def __init__(self, database: Database) -> None:
        self._database = database

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""


class StoriesInMemory(_InMemory):
    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.records: dict[str, StoryRecord] = {}
        """By id, oldest first."""

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
        await self._database.record("stories.insert", story_id)
        self.records[story_id] = StoryRecord(
            story_id, account_id, name, description, settings, structure, 1, phrases
        )

    async def list(self, account_id: str, page: Page) -> list[dict[str, Any]]:
        await self._database.record("stories.list", account_id)
        stories = [
            {"_id": ObjectId(r.id), "name": r.name, "description": r.description}
            for r in self.records.values()
            if r.account_id == account_id
        ]
        return page.of(stories)

    async def count(self, account_id: str) -> int:
        await self._database.record("stories.count", account_id)
        return sum(1 for r in self.records.values() if r.account_id == account_id)

    async def get(self, account_id: str, story_id: str) -> StoryRecord | None:
        await self._database.record("stories.get", story_id)
        record = self.records.get(story_id)
        return record if record is not None and record.account_id == account_id else None

    async def update(
        self,
        story: StoryRecord,
        changes: StoryFields | None = None,
        structure: Structure | None = None,
        added_phrases: int = 0,
    ) -> bool:
        await self._database.record("stories.update", story.id)
        current = self._unchanged_since(story)
        if current is None:
            return False
        if changes is not None:
            current = replace(
                current,
                name=changes.name,
                description=changes.description,
                settings=changes.settings,
                published=changes.published,
            )
        self.records[story.id] = replace(
            current,
            structure=current.structure if structure is None else structure,
            revision=current.revision + 1,
            phrases=_plus(current.phrases, added_phrases),
        )
        return True

    async def add_interaction(
        self, story: StoryRecord, interaction_id: str, parent_id: str | None, phrases: int
    ) -> bool:
        await self._database.record("stories.add_interaction", story.id, interaction_id)
        current = self._unchanged_since(story)
        if current is None:
            return False
        structure = current.structure
        if parent_id is None:
            structure = structure.add_root(interaction_id)
        else:
            structure = structure.add_child(parent_id, interaction_id)
        self.records[story.id] = replace(
            current,
            structure=structure,
            revision=current.revision + 1,
            phrases=_plus(current.phrases, phrases),
        )
        return True

    async def add_phrases(self, story: StoryRecord, added: int) -> None:
        await self._database.record("stories.add_phrases", story.id)
        current = self.records.get(story.id)
        if current is not None and current.account_id == story.account_id:
            self.records[story.id] = replace(current, phrases=_plus(current.phrases, added))

    async def set_phrases(self, story: StoryRecord, phrases: int) -> bool:
        await self._database.record("stories.set_phrases", story.id)
        current = self._unchanged_since(story)
        if current is None or current.phrases != story.phrases:
            return False
        self.records[story.id] = replace(current, revision=current.revision + 1, phrases=phrases)
        return True

    def _unchanged_since(self, story: StoryRecord) -> StoryRecord | None:
        current = self.records.get(story.id)
        if current is None or current.account_id != story.account_id:
            return None
        return current if current.revision == story.revision else None

    async def delete(self, account_id: str, story_id: str) -> bool:
        await self._database.record("stories.delete", story_id)
        record = self.records.get(story_id)
        if record is None or record.account_id != account_id:
            return False
        del self.records[story_id]
        return True

    def bump(self, story_id: str, structure: Structure | None = None) -> None:
        """Another writer's successful update: a new revision, maybe a new structure."""
        current = self.records[story_id]
        self.records[story_id] = replace(
            current,
            structure=current.structure if structure is None else structure,
            revision=current.revision + 1,
        )


class VersionsInMemory(_InMemory):
    """Numbers the story's versions as the unique index does: one past its highest."""

    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.versions: dict[str, StoryVersion] = {}

    def _of(self, account_id: str, story_id: str) -> list[StoryVersion]:
        return [
            v
            for v in self.versions.values()
            if (v.account_id, v.story_id) == (account_id, story_id)
        ]

    async def add(self, version: StoryVersion) -> StoryVersion:
        await self._database.record("versions.add", version.story_id)
        numbers = [v.number for v in self._of(version.account_id, version.story_id)]
        numbered = replace(version, number=max(numbers, default=0) + 1)
        self.versions[version.id] = numbered
        return numbered

    async def list(self, account_id: str, story_id: str, page: Page) -> list[VersionSummary]:
        await self._database.record("versions.list", story_id)
        newest_first = sorted(self._of(account_id, story_id), key=lambda v: -v.number)
        return page.of([v.summary() for v in newest_first])

    async def count(self, account_id: str, story_id: str) -> int:
        return len(self._of(account_id, story_id))

    async def get(self, account_id: str, story_id: str, version_id: str) -> StoryVersion | None:
        await self._database.record("versions.get", version_id)
        version = self.versions.get(version_id)
        mine = version is not None and (version.account_id, version.story_id) == (
            account_id,
            story_id,
        )
        return version if mine else None

    async def delete(self, account_id: str, story_id: str, version_id: str) -> bool:
        if await self.get(account_id, story_id, version_id) is None:
            return False
        del self.versions[version_id]
        return True

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        for version in self._of(account_id, story_id):
            del self.versions[version.id]


@dataclass(frozen=True)
class OwnedInteraction:
    """An interaction and the account and story it belongs to."""

    account_id: str
    story_id: str
    interaction: Interaction
    awaited_connection: str | None = None
    awaited_handoff: str | None = None


class InteractionsInMemory(_InMemory):
    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.records: dict[str, OwnedInteraction] = {}
        """By id."""

    async def insert_many(
        self, account_id: str, story_id: str, interactions: Sequence[Interaction]
    ) -> None:
        await self._database.record(
            "interactions.insert_many", story_id, _ids(i.id for i in interactions)
        )
        for interaction in interactions:
            self.records[interaction.id] = OwnedInteraction(account_id, story_id, interaction)

    async def with_triggers(self, story_id: str, triggers: list[str]) -> dict[str, list[str]]:
        await self._database.record("interactions.with_triggers", story_id)
        wanted = {t.lower() for t in triggers}
        return {
            i: list(r.interaction.triggers)
            for i, r in self.records.items()
            if r.story_id == story_id and {t.lower() for t in r.interaction.triggers} & wanted
        }

    async def find(self, story_id: str, ids: Iterable[str]) -> dict[str, Interaction]:
        wanted = _ids(ids)
        await self._database.record("interactions.find", story_id, wanted)
        found = {i: self._of_story(story_id, i) for i in wanted}
        return {i: interaction for i, interaction in found.items() if interaction is not None}

    async def summaries(self, story_id: str, ids: Iterable[str]) -> dict[str, InteractionSummary]:
        wanted = _ids(ids)
        await self._database.record("interactions.summaries", story_id, wanted)
        found = {i: self._of_story(story_id, i) for i in wanted}
        return {
            i: InteractionSummary(interaction.name, interaction.webhook)
            for i, interaction in found.items()
            if interaction is not None
        }

    async def count_phrases(self, story_id: str, ids: Iterable[str]) -> int:
        wanted = _ids(ids)
        await self._database.record("interactions.count_phrases", story_id, wanted)
        found = (self._of_story(story_id, i) for i in wanted)
        return sum(len(interaction.user_says) for interaction in found if interaction is not None)

    async def get(self, story_id: str, interaction_id: str) -> Interaction | None:
        await self._database.record("interactions.get", story_id, interaction_id)
        return self._of_story(story_id, interaction_id)

    async def replace_content(self, story_id: str, interaction: Interaction) -> None:
        await self._database.record("interactions.replace_content", story_id, interaction.id)
        if self._of_story(story_id, interaction.id) is not None:
            owned = self.records[interaction.id]
            self.records[interaction.id] = replace(owned, interaction=interaction)

    async def await_connections(self, story_id: str, names: Mapping[str, str]) -> None:
        await self._database.record("interactions.await_connections", story_id, _ids(names))
        for interaction_id, name in names.items():
            if self._of_story(story_id, interaction_id) is not None:
                owned = self.records[interaction_id]
                self.records[interaction_id] = replace(owned, awaited_connection=name)

    async def awaited_connections(self, story_id: str) -> dict[str, str]:
        await self._database.record("interactions.awaited_connections", story_id)
        return {
            i: r.awaited_connection
            for i, r in self.records.items()
            if r.story_id == story_id and r.awaited_connection is not None
        }

    async def await_handoffs(self, story_id: str, names: Mapping[str, str]) -> None:
        await self._database.record("interactions.await_handoffs", story_id, _ids(names))
        for interaction_id, name in names.items():
            if self._of_story(story_id, interaction_id) is not None:
                owned = self.records[interaction_id]
                self.records[interaction_id] = replace(owned, awaited_handoff=name)

    async def awaited_handoffs(self, story_id: str) -> dict[str, str]:
        await self._database.record("interactions.awaited_handoffs", story_id)
        return {
            i: r.awaited_handoff
            for i, r in self.records.items()
            if r.story_id == story_id and r.awaited_handoff is not None
        }

    async def connect_awaiting(self, story_id: str, name: str, connection_id: str) -> list[str]:
        await self._database.record("interactions.connect_awaiting", story_id, name)
        connected = set()
        for interaction_id, owned in list(self.records.items()):
            if owned.story_id != story_id:
                continue
            interaction = owned.interaction
            if owned.awaited_connection == name:
                if interaction.webhook == "":
                    interaction = replace(interaction, webhook=connection_id)
                    connected.add(interaction_id)
                owned = replace(owned, awaited_connection=None)
            if owned.awaited_handoff == name:
                if handoff_block(interaction.responses) is None:
                    responses = (*interaction.responses, Handoff(connection_id))
                    interaction = replace(interaction, responses=responses)
                    connected.add(interaction_id)
                owned = replace(owned, awaited_handoff=None)
            self.records[interaction_id] = replace(owned, interaction=interaction)
        return sorted(connected)

    async def delete_many(self, story_id: str, ids: Iterable[str]) -> None:
        wanted = _ids(ids)
        await self._database.record("interactions.delete_many", story_id, wanted)
        for interaction_id in wanted:
            if self._of_story(story_id, interaction_id) is not None:
                del self.records[interaction_id]

    async def delete_for_story(self, story_id: str) -> None:
        await self._database.record("interactions.delete_for_story", story_id)
        for interaction_id, owned in list(self.records.items()):
            if owned.story_id == story_id:
                del self.records[interaction_id]

    async def using_entity(self, account_id: str, entity: str) -> dict[str, str]:
        await self._database.record("interactions.using_entity", entity)
        return {
            i: r.story_id
            for i, r in self.records.items()
            if r.account_id == account_id and entity in referenced_entities(r.interaction)
        }

    def _of_story(self, story_id: str, interaction_id: str) -> Interaction | None:
        owned = self.records.get(interaction_id)
        return None if owned is None or owned.story_id != story_id else owned.interaction


@dataclass(frozen=True)
class OwnedEntity:
    """An entity and the account it belongs to."""

    account_id: str
    entity: Entity


class EntitiesInMemory(_InMemory):
    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.records: dict[str, OwnedEntity] = {}
        """By id, oldest first."""

    async def insert(self, account_id: str, entity: Entity, entity_id: str | None = None) -> str:
        await self._database.record("entities.insert", entity.name)
        self._refuse_taken_name(account_id, None, entity.name)
        key = str(ObjectId(entity_id))
        self.records[key] = OwnedEntity(account_id, entity)
        return key

    async def list(self, account_id: str, page: Page = EVERY_ITEM) -> list[StoredEntity]:
        await self._database.record("entities.list", account_id)
        entities = [
            StoredEntity(i, r.entity) for i, r in self.records.items() if r.account_id == account_id
        ]
        return page.of(entities)

    async def count(self, account_id: str) -> int:
        return sum(r.account_id == account_id for r in self.records.values())

    async def totals(self, account_id: str) -> tuple[int, int]:
        await self._database.record("entities.totals", account_id)
        owned = [r.entity for r in self.records.values() if r.account_id == account_id]
        return len(owned), sum(len(entity.entries) for entity in owned)

    async def get(self, account_id: str, entity_id: str) -> StoredEntity | None:
        await self._database.record("entities.get", entity_id)
        owned = self._of_account(account_id, entity_id)
        return None if owned is None else StoredEntity(entity_id, owned.entity)

    async def replace(self, account_id: str, entity_id: str, entity: Entity) -> bool:
        await self._database.record("entities.replace", entity_id)
        if self._of_account(account_id, entity_id) is None:
            return False
        self._refuse_taken_name(account_id, entity_id, entity.name)
        self.records[entity_id] = OwnedEntity(account_id, entity)
        return True

    async def delete(self, account_id: str, entity_id: str) -> bool:
        await self._database.record("entities.delete", entity_id)
        if self._of_account(account_id, entity_id) is None:
            return False
        del self.records[entity_id]
        return True

    async def with_names(self, account_id: str, names: Iterable[str]) -> Sequence[StoredEntity]:
        await self._database.record("entities.with_names", account_id)
        wanted = set(names)
        return [
            StoredEntity(entity_id, r.entity)
            for entity_id, r in self.records.items()
            if r.account_id == account_id and r.entity.name in wanted
        ]

    async def existing_names(self, account_id: str, names: Iterable[str]) -> set[str]:
        wanted = _ids(names)
        await self._database.record("entities.existing_names", wanted)
        return {
            r.entity.name
            for r in self.records.values()
            if r.account_id == account_id and r.entity.name in wanted
        }

    def _of_account(self, account_id: str, entity_id: str) -> OwnedEntity | None:
        if object_id(entity_id) is None:
            return None
        owned = self.records.get(entity_id)
        return owned if owned is not None and owned.account_id == account_id else None

    def _refuse_taken_name(self, account_id: str, entity_id: str | None, name: str) -> None:
        for key, owned in self.records.items():
            same_name = (owned.account_id, owned.entity.name) == (account_id, name)
            if same_name and key != entity_id:
                raise Conflict(f"an entity named {name!r} already exists")


@dataclass(frozen=True)
class _Session:
    state: SessionState
    version: int
    expires_at: datetime


class SessionsInMemory(_InMemory):
    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.sessions: dict[str, _Session] = {}
        """By `story id:session id`."""

    async def load(self, story_id: str, session_id: str) -> StoredSession:
        await self._database.record("sessions.load", story_id, session_id)
        stored = self.sessions.get(session_key(story_id, session_id))
        if stored is None:
            return StoredSession(SessionState(), 0)
        alive = stored.expires_at > utcnow()
        return StoredSession(stored.state if alive else SessionState(), stored.version)

    async def save(
        self,
        story_id: str,
        session_id: str,
        read_version: int,
        state: SessionState,
        idle_timeout: timedelta,
    ) -> bool:
        await self._database.record("sessions.save", story_id, session_id)
        key = session_key(story_id, session_id)
        stored = self.sessions.get(key)
        if (0 if stored is None else stored.version) != read_version:
            return False
        self.sessions[key] = _Session(state, read_version + 1, utcnow() + idle_timeout)
        return True

    async def open_handoffs(
        self, story_id: str, active_since: datetime, page: Page
    ) -> tuple[list[OpenHandoff], int]:
        await self._database.record("sessions.open_handoffs", story_id)
        prefix = session_key(story_id, "")
        found = sorted(
            (
                (stored.state.handoff.since, key, stored.state.handoff)
                for key, stored in self.sessions.items()
                if key.startswith(prefix)
                and stored.expires_at > utcnow()
                and stored.state.handoff is not None
                and stored.state.handoff.last_message_at > active_since
            ),
            key=lambda found: found[:2],
        )
        items = [OpenHandoff(key[len(prefix) :], handoff) for _, key, handoff in found]
        return page.of(items), len(items)

    async def delete(self, story_id: str, session_id: str) -> bool:
        await self._database.record("sessions.delete", story_id, session_id)
        return self.sessions.pop(session_key(story_id, session_id), None) is not None

    async def delete_for_story(self, story_id: str) -> None:
        await self._database.record("sessions.delete_for_story", story_id)
        for key in [k for k in self.sessions if k.startswith(f"{story_id}:")]:
            del self.sessions[key]


class ConnectionsInMemory(_InMemory):
    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.events: dict[str, ConnectionChanged] = {}
        """The newest event of each connection, a deletion included."""

    async def apply(self, event: ConnectionChanged) -> None:
        await self._database.record("connections.apply", event.connection_id)
        kept = self.events.get(event.connection_id)
        if kept is None or kept.revision < event.revision:
            self.events[event.connection_id] = event

    async def names(self, account_id: str, story_id: str, ids: Iterable[str]) -> dict[str, str]:
        await self._database.record("connections.names", story_id)
        wanted = set(ids)
        return {
            event.connection_id: event.name
            for event in self.events.values()
            if event.connection_id in wanted
            and (event.account_id, event.story_id) == (account_id, story_id)
            and not event.deleted
        }

    async def for_webhook(self, account_id: str, story_id: str, webhook: str) -> Connection | None:
        await self._database.record("connections.for_webhook", webhook)
        by_id = is_object_id(webhook)
        for event in self.events.values():
            named = event.connection_id == webhook if by_id else event.url == webhook
            if (
                named
                and (event.account_id, event.story_id) == (account_id, story_id)
                and not event.deleted
            ):
                auth = event.auth
                return Connection(
                    id=event.connection_id,
                    name=event.name,
                    url=event.url,
                    token=event.token,
                    headers=event.headers or {},
                    auth=None if not auth else (auth["username"], auth["password"]),
                )
        return None

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        await self._database.record("connections.delete_for_story", story_id)
        for connection_id, event in list(self.events.items()):
            if (event.account_id, event.story_id) == (account_id, story_id):
                del self.events[connection_id]


class ConnectionDirectory:
    """integrations-api's answer to "is this connection the story's?", from a set of
    (account, story, connection) it was told about."""

    def __init__(self) -> None:
        self.known: set[tuple[str, str, str]] = set()

    async def is_story_connection(self, account_id: str, story_id: str, connection_id: str) -> bool:
        return (account_id, story_id, connection_id) in self.known


class AnalyticsInMemory:
    """Hour counters and conversation marks, as `storage.analytics` keeps them.
    `meanwhile` runs actions before the next conditional writes look at the data:
    another process counting the same sessions."""

    def __init__(self) -> None:
        self.hours: dict[BucketKey, Tally] = {}
        self.conversations: dict[SessionKey, Conversation] = {}
        self._meanwhile: list[Action] = []

    def meanwhile(self, action: Action) -> None:
        self._meanwhile.append(action)

    async def _before_write(self) -> None:
        while self._meanwhile:
            await self._meanwhile.pop(0)()

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def conversations_of(self, keys: Iterable[SessionKey]) -> dict[SessionKey, Conversation]:
        return {key: self.conversations[key] for key in keys if key in self.conversations}

    async def insert_conversations(
        self, conversations: Mapping[SessionKey, Conversation]
    ) -> set[SessionKey]:
        await self._before_write()
        missed = {key for key in conversations if key in self.conversations}
        for key, mark in conversations.items():
            self.conversations.setdefault(key, mark)
        return missed

    async def replace_conversation(
        self, key: SessionKey, before: Conversation, after: Conversation
    ) -> bool:
        await self._before_write()
        if self.conversations.get(key) != before:
            return False
        self.conversations[key] = after
        return True

    async def add(self, tallies: Mapping[BucketKey, Tally]) -> None:
        for key, tally in tallies.items():
            self.hours[key] = self.hours.get(key, Tally()) + tally

    async def hours_of(
        self, story_id: str, first: int, end: int, only: Segment = ANY
    ) -> dict[int, Tally]:
        found: dict[int, Tally] = {}
        for (story, hour, segment), tally in self.hours.items():
            matches = all(wanted in (None, its) for wanted, its in zip(only, segment, strict=True))
            if story == story_id and first <= hour < end and matches:
                found[hour] = found.get(hour, Tally()) + tally
        return found

    async def first_hour(self, story_id: str) -> int | None:
        return min((hour for story, hour, _ in self.hours if story == story_id), default=None)

    async def delete_for_story(self, story_id: str) -> None:
        for key in [k for k in self.hours if k[0] == story_id]:
            del self.hours[key]
        for key in [k for k in self.conversations if k[0] == story_id]:
            del self.conversations[key]


class VectorsInMemory:
    """Phrase vectors by key and the stories using each, as `storage.vectors` keeps
    them (float16)."""

    def __init__(self) -> None:
        self.by_key: dict[str, StoredVectors] = {}
        self.stories: dict[str, set[str]] = {}

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def take(self, story_id: str, keys: Iterable[str]) -> dict[str, StoredVectors]:
        found = {k: self.by_key[k] for k in keys if k in self.by_key}
        for key in found:
            self.stories.setdefault(key, set()).add(story_id)
        return found

    async def put(self, model_id: str, story_id: str, vectors: Mapping[str, Vectors]) -> None:
        for key, vector in vectors.items():
            self.by_key.setdefault(key, vector.astype(np.float16))
            self.stories.setdefault(key, set()).add(story_id)

    async def sweep(self, story_id: str, keep: set[str], limit: int) -> int:
        marked = [k for k, stories in self.stories.items() if story_id in stories]
        unused = [k for k in marked if k not in keep][:limit]
        for key in unused:
            self.stories[key].discard(story_id)
            if not self.stories[key]:
                del self.stories[key], self.by_key[key]
        return len(unused)

    async def delete_for_story(self, story_id: str) -> None:
        await self.sweep(story_id, set(), len(self.stories))


class TurnsInMemory:
    """The `turns` and `conversations` collections as `storage.turns.TurnRepository`
    keeps them: each turn as the document it stores (`turns`, by id), which the inbox's
    fake reads too; a turn stored twice (a batch tried again) counts once."""

    def __init__(self) -> None:
        self.turns: dict[str, dict[str, Any]] = {}
        self.summaries: dict[tuple[str, str], dict[str, Any]] = {}
        self.away = False
        """True: every write fails as with MongoDB unreachable."""
        self.batches: list[int] = []
        """The size of each batch stored."""

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert_many(self, turns: Sequence[StoredTurn]) -> None:
        if self.away:
            raise AutoReconnect("the database is away")
        self.batches.append(len(turns))
        fresh = [t for t in turns if t.id not in self.turns]
        for stored in fresh:
            document = turn_to_document(stored.turn, stored.expires_at)
            self.turns[stored.id] = {"_id": ObjectId(stored.id), **document}
        for key, change in summary_changes(fresh).items():
            summary = self.summaries.setdefault(key, {**change, "turns": 0, "fallbacks": 0})
            summary["startedMs"] = min(summary["startedMs"], change["startedMs"])
            summary["lastAtMs"] = max(summary["lastAtMs"], change["lastAtMs"])
            summary["turns"] += change["turns"]
            summary["fallbacks"] += change["fallbacks"]
            summary["outcomes"] = sorted({*summary["outcomes"], *change["outcomes"]})
            summary["interactions"] = sorted({*summary["interactions"], *change["interactions"]})
            for field in ("sources", "channels"):
                summary[field] = sorted({*summary[field], *change[field]})
            summary["test"] = summary["test"] or change["test"]

    async def conversations_page(
        self, story_id: str, found: ConversationFilter, cursor: str | None, limit: int
    ) -> ConversationPage:
        saying = {
            d["sessionId"]
            for d in self.turns.values()
            if found.text is not None and found.text.lower() in (d.get("query") or "").lower()
        }
        position = None if cursor is None else decode_cursor(cursor)
        chosen = [
            (summary, session)
            for (story, session), summary in self.summaries.items()
            if story == story_id
            and (found.since is None or summary["lastAtMs"] >= found.since.timestamp() * 1000)
            and (found.until is None or summary["startedMs"] < found.until.timestamp() * 1000)
            and (found.outcome is None or found.outcome in summary["outcomes"])
            and (found.interaction is None or found.interaction in summary["interactions"])
            and (found.source is None or found.source in summary["sources"])
            and (found.channel is None or found.channel in summary["channels"])
            and (found.test is None or found.test == summary["test"])
            and (found.text is None or session in saying)
            and (position is None or (summary["lastAtMs"], session) < position)
        ]
        chosen.sort(key=lambda pair: (pair[0]["lastAtMs"], pair[1]), reverse=True)
        items = tuple(
            ConversationSummary(
                session_id=session,
                started=datetime.fromtimestamp(summary["startedMs"] / 1000, UTC),
                last_at=datetime.fromtimestamp(summary["lastAtMs"] / 1000, UTC),
                turns=summary["turns"],
                fallbacks=summary["fallbacks"],
            )
            for summary, session in chosen[: limit + 1]
        )
        more = len(items) > limit
        return ConversationPage(items[:limit], encode_cursor(items[limit - 1]) if more else None)

    async def transcript(self, story_id: str, session_id: str) -> list[TurnRecord]:
        turns = [t for t in self._of_story(story_id) if t.session_id == session_id]
        return sorted(turns, key=lambda t: t.at)[:MAX_TRANSCRIPT_TURNS]

    async def export(
        self, story_id: str, since: datetime | None, until: datetime | None, limit: int
    ) -> AsyncIterator[TurnRecord]:
        turns = sorted(self._of_story(story_id), key=lambda t: t.at)
        chosen = [
            t for t in turns if (since is None or since <= t.at) and (until is None or t.at < until)
        ]
        for turn in chosen[:limit]:
            yield turn

    async def delete_conversation(self, story_id: str, session_id: str) -> bool:
        for turn_id, document in list(self.turns.items()):
            if document["storyId"] == story_id and document["sessionId"] == session_id:
                del self.turns[turn_id]
        return self.summaries.pop((story_id, session_id), None) is not None

    async def delete_for_story(self, story_id: str) -> None:
        for turn_id, document in list(self.turns.items()):
            if document["storyId"] == story_id:
                del self.turns[turn_id]
        for key in [k for k in self.summaries if k[0] == story_id]:
            del self.summaries[key]

    def _of_story(self, story_id: str) -> list[TurnRecord]:
        return [turn_from_document(d) for d in self.turns.values() if d["storyId"] == story_id]


class InboxInMemory:
    """The misses inbox's view of the `turns` collection and its ignored texts, as
    `storage.inbox.InboxRepository` keeps them: it reads the turn documents of the
    `TurnsInMemory` it is given, as the repository reads what `TurnRepository` wrote."""

    def __init__(self, collection: TurnsInMemory) -> None:
        self.collection = collection
        self.ignored: dict[str, set[str]] = {}

    @property
    def turns(self) -> list[dict[str, Any]]:
        return list(self.collection.turns.values())

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert_turns(self, documents: Iterable[dict[str, Any]]) -> None:
        """Turn documents as a test writes them straight into the collection."""
        for document in documents:
            self.collection.turns[str(document["_id"])] = copy.deepcopy(document)

    async def unresolved(
        self,
        story_id: str,
        review_below: float,
        model_id: str | None,
        since: datetime | None = None,
    ) -> list[Miss]:
        def missed(document: dict[str, Any]) -> bool:
            if document.get("test") is True:
                return False
            return (
                document["outcome"] == "fallback"
                or (document["outcome"] == "matched" and document["score"] < review_below)
                or (
                    document["outcome"] == "incomplete"
                    and document["score"] < min(review_below, PROMPT_CONTINUED)
                )
            )

        found = [
            d
            for d in self.turns
            if d["storyId"] == story_id
            and d.get("resolution") is None
            and isinstance(d.get("query"), str)
            and (since is None or d["at"] >= since)
            and missed(d)
        ]
        found.sort(key=lambda d: d["at"], reverse=True)
        ignored = self.ignored.get(story_id, set())
        kept = [d for d in found[:MAX_INBOX_TURNS] if normalised(d["query"]) not in ignored]
        newest = {normalised(d["query"]): d["_id"] for d in reversed(kept)}
        carrying = set(newest.values())
        return [
            Miss(
                str(d["_id"]),
                d["query"],
                d["at"],
                vector_from_document(d["vector"])
                if d["_id"] in carrying and model_id and vector_model(d) == model_id
                else None,
                d.get("expiresAt"),
            )
            for d in kept
        ]

    async def resolve(self, story_id: str, turn_ids: Sequence[str], resolution: Resolution) -> int:
        return self._set(story_id, turn_ids, resolution_to_document(resolution))

    async def reopen(self, story_id: str, turn_ids: Sequence[str]) -> int:
        wanted = set(turn_ids)
        ignored = {
            normalised(d["query"])
            for d in self.turns
            if str(d["_id"]) in wanted
            and d["storyId"] == story_id
            and (d.get("resolution") or {}).get("action") == "ignored"
        }
        self.ignored.get(story_id, set()).difference_update(ignored)
        return self._set(story_id, turn_ids, None)

    def _set(
        self, story_id: str, turn_ids: Sequence[str], resolution: dict[str, Any] | None
    ) -> int:
        """Set the resolution of these turns of the story that are not already (un)resolved."""
        wanted = set(turn_ids)
        changed = 0
        for document in self.turns:
            mine = str(document["_id"]) in wanted and document["storyId"] == story_id
            if mine and (document.get("resolution") is None) != (resolution is None):
                document["resolution"] = resolution
                changed += 1
        return changed

    async def ignore(self, story_id: str, texts: Iterable[str], by: str, at: datetime) -> None:
        self.ignored.setdefault(story_id, set()).update({normalised(t) for t in texts} - {""})

    async def delete_for_story(self, story_id: str) -> None:
        self.ignored.pop(story_id, None)


class InboxSnapshotsInMemory:
    """Snapshots of inboxes as `storage.inbox_snapshots.InboxSnapshotRepository` keeps
    them: the payload as written, decoded when read, and each story's generation."""

    def __init__(self) -> None:
        self.generations: dict[str, int] = {}
        self.payloads: dict[str, bytes] = {}

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def generation(self, story_id: str) -> int:
        return self.generations.get(story_id, 0)

    async def read(self, story_id: str) -> InboxSnapshot | None:
        payload = self.payloads.get(story_id)
        return None if payload is None else decoded(payload)

    async def write(self, story_id: str, generation: int, payload: bytes) -> bool:
        if len(payload) > MAX_SNAPSHOT_BYTES or self.generations.get(story_id, 0) != generation:
            return False
        self.payloads[story_id] = payload
        return True

    async def invalidate(self, story_id: str) -> None:
        self.generations[story_id] = self.generations.get(story_id, 0) + 1
        self.payloads.pop(story_id, None)

    async def delete_for_story(self, story_id: str) -> None:
        self.generations.pop(story_id, None)
        self.payloads.pop(story_id, None)


@dataclass(frozen=True)
class _OwnedTest:
    account_id: str
    story_id: str
    test: ConversationTest


class ConversationTestsInMemory:
    """Tests by id (in the order they were made) and the last run of each story, as
    `storage.conversation_tests` keeps them."""

    def __init__(self) -> None:
        self.tests: dict[str, _OwnedTest] = {}
        self.runs: dict[str, tuple[str, TestRun]] = {}

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert(
        self, account_id: str, story_id: str, test: ConversationTest, test_id: str | None = None
    ) -> str:
        test_id = test_id or str(ObjectId())
        self.tests[test_id] = _OwnedTest(account_id, story_id, test)
        return test_id

    async def insert_many(
        self, account_id: str, story_id: str, tests: Sequence[ConversationTest]
    ) -> None:
        for test in tests:
            await self.insert(account_id, story_id, test)

    async def list(self, account_id: str, story_id: str) -> list[StoredTest]:
        return [
            StoredTest(test_id, owned.test)
            for test_id, owned in sorted(self.tests.items())
            if (owned.account_id, owned.story_id) == (account_id, story_id)
        ]

    async def count(self, account_id: str, story_id: str) -> int:
        return len(await self.list(account_id, story_id))

    async def get(self, account_id: str, story_id: str, test_id: str) -> StoredTest | None:
        owned = self.tests.get(test_id.lower())
        if owned is None or (owned.account_id, owned.story_id) != (account_id, story_id):
            return None
        return StoredTest(test_id.lower(), owned.test)

    async def replace(
        self, account_id: str, story_id: str, test_id: str, test: ConversationTest
    ) -> bool:
        if await self.get(account_id, story_id, test_id) is None:
            return False
        self.tests[test_id.lower()] = _OwnedTest(account_id, story_id, test)
        return True

    async def delete(self, account_id: str, story_id: str, test_id: str) -> bool:
        if await self.get(account_id, story_id, test_id) is None:
            return False
        del self.tests[test_id.lower()]
        return True

    async def save_run(self, account_id: str, story_id: str, run: TestRun) -> None:
        self.runs[story_id] = (account_id, run)

    async def last_run(self, account_id: str, story_id: str) -> TestRun | None:
        owner, run = self.runs.get(story_id, (None, None))
        return run if owner == account_id else None

    async def delete_for_story(self, story_id: str) -> None:
        for test_id in [i for i, owned in self.tests.items() if owned.story_id == story_id]:
            del self.tests[test_id]
        self.runs.pop(story_id, None)
