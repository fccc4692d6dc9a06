"""Compiled stories kept in this process, refreshed only where an edit touched them.

A query for a cached, unchanged story reads nothing from the database. A change marks
the story stale; the next query for it re-reads just the story document, the
interactions the change named, and the entities if they changed, and replaces the
compiled story with one made from the old and what changed (re-indexing only those
interactions). A turn holding the old value finishes with it.

With a semantic stage, a compile also loads the stored vectors of the phrases it
indexes; phrases still without one are encoded in the background, and when their
vectors land their interactions are refreshed like any other edit.
"""

import asyncio
import time
from dataclasses import dataclass, field

from bot_api.changes import Change, EntitiesEdited, StoryCreated, StoryDeleted, StoryEdited
from bot_api.conversations.vectors import PhraseVectorService
from bot_api.domain.entities import Entity
from bot_api.engine.semantic import PhraseVectors, interaction_texts, representatives
from bot_api.engine.story import CompiledStory
from bot_api.metrics import (
    STORY_CACHE_ENTRIES,
    STORY_CACHE_HITS,
    STORY_CACHE_MISSES,
    STORY_COMPILE_SECONDS,
)
from bot_api.storage import Stores
from bot_api.storage.entities import entity_from_document
from bot_api.storage.interactions import interaction_from_document
from shared.errors import NotFound


@dataclass
class _Entry:
    story: CompiledStory
    account_id: str
    stale_story: bool = False
    stale_interactions: set[str] = field(default_factory=set)
    stale_entities: bool = False
    vectors_landed: set[str] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def stale(self) -> bool:
        return (
            self.stale_story
            or bool(self.stale_interactions)
            or self.stale_entities
            or bool(self.vectors_landed)
        )


class StoryCache:
    def __init__(self, stores: Stores, vectors: PhraseVectorService | None = None) -> None:
        self._stores = stores
        self._vectors = vectors
        self._entries: dict[str, _Entry] = {}
        self._oldest: dict[str, str | None] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._changes_seen: dict[str, int] = {}

    async def story(self, account_id: str, story_id: str | None) -> CompiledStory:
        """The account's story (its oldest when no id is given), compiled and current."""
        if story_id is None:
            story_id = await self._oldest_story(account_id)
        entry = self._entries.get(story_id)
        if entry is None:
            STORY_CACHE_MISSES.inc()
            entry = await self._load(account_id, story_id)
        else:
            STORY_CACHE_HITS.inc()
        if entry.account_id != account_id:
            raise NotFound(f"no story {story_id}")
        if entry.stale:
            await self._refresh(entry)
        return entry.story

    async def changed(self, change: Change) -> None:
        """A change made here or reported by another replica. Any story change may change
        which story is an account's oldest."""
        match change:
            case StoryCreated() | StoryEdited() | StoryDeleted():
                self._changes_seen[change.story_id] = self._changes_seen.get(change.story_id, 0) + 1
                self._oldest.pop(change.account_id, None)
                entry = self._entries.get(change.story_id)
                if isinstance(change, StoryDeleted):
                    self._entries.pop(change.story_id, None)
                    STORY_CACHE_ENTRIES.set(len(self._entries))
                elif entry is not None:
                    entry.stale_story = True
                    if isinstance(change, StoryEdited):
                        entry.stale_interactions |= change.interaction_ids
            case EntitiesEdited(account_id=account_id):
                for entry in self._entries.values():
                    if entry.account_id == account_id:
                        entry.stale_entities = True

    async def landed(self, story_id: str, interaction_ids: set[str]) -> None:
        """The phrase vectors of these interactions were stored: the next query takes
        them in."""
        entry = self._entries.get(story_id)
        if entry is not None:
            entry.vectors_landed |= interaction_ids

    def _semantic(self, language: str) -> bool:
        return self._vectors is not None and language in self._vectors.encoder.languages

    async def _phrase_vectors(
        self, story_id: str, texts: dict[str, list[str]], encode_missing: bool = True
    ) -> PhraseVectors | None:
        if self._vectors is None:
            return None
        return await self._vectors.load(story_id, texts, self.landed if encode_missing else None)

    async def _oldest_story(self, account_id: str) -> str:
        if account_id not in self._oldest:
            stories = await self._stores.stories.list(account_id)
            self._oldest[account_id] = str(stories[0]["_id"]) if stories else None
        oldest = self._oldest[account_id]
        if oldest is None:
            raise NotFound("this account has no story yet")
        return oldest

    async def _load(self, account_id: str, story_id: str) -> _Entry:
        async with self._loading.setdefault(story_id, asyncio.Lock()):
            entry = self._entries.get(story_id)
            while entry is None:
                entry = await self._compile(account_id, story_id)
            self._entries[story_id] = entry
            STORY_CACHE_ENTRIES.set(len(self._entries))
            return entry

    async def _compile(self, account_id: str, story_id: str) -> _Entry | None:
        """The story compiled from the database, or None if it changed meanwhile."""
        changes_before = self._changes_seen.get(story_id, 0)
        story = await self._stores.stories.get(account_id, story_id)
        if story is None:
            raise NotFound(f"no story {story_id}")
        documents = await self._stores.interactions.find(story.id, story.structure.contexts)
        interactions = [interaction_from_document(d) for d in documents.values()]
        entities = await self._entities(account_id)
        vectors = (
            await self._phrase_vectors(
                story.id, interaction_texts(interactions, representatives(entities))
            )
            if self._semantic(story.settings.language)
            else None
        )
        started = time.perf_counter()
        compiled = CompiledStory.compile(
            story.id,
            story.settings,
            story.structure,
            interactions,
            entities,
            vectors,
        )
        STORY_COMPILE_SECONDS.observe(time.perf_counter() - started)
        if self._changes_seen.get(story_id, 0) != changes_before:
            return None
        return _Entry(compiled, account_id)

    async def _refresh(self, entry: _Entry) -> None:
        """Read what the changes touched, then swap in the story made from it (no await
        between the reads' end and the swap, so no turn sees half an edit)."""
        async with entry.lock:
            if not entry.stale:
                return  # refreshed by the turn that held the lock before
            current = entry.story
            record = None
            if entry.stale_story:
                entry.stale_story = False
                record = await self._stores.stories.get(entry.account_id, current.id)
                if record is None:
                    self._entries.pop(current.id, None)
                    STORY_CACHE_ENTRIES.set(len(self._entries))
                    raise NotFound(f"no story {current.id}")
            structure = current.structure if record is None else record.structure
            wanted = {i for i in entry.stale_interactions if i in structure}
            entry.stale_interactions = set()
            documents = await self._stores.interactions.find(current.id, wanted) if wanted else {}
            entities = None
            if entry.stale_entities:
                entry.stale_entities = False
                entities = await self._entities(entry.account_id)
            interactions = [interaction_from_document(d) for d in documents.values()]
            settings = current.settings if record is None else record.settings
            vectors = (
                await self._phrase_vectors(current.id, current.to_encode(interactions, entities))
                if self._semantic(settings.language)
                else None
            )
            story = current.edited(
                settings=None if record is None else record.settings,
                structure=None if record is None else record.structure,
                interactions=interactions,
                entities=entities,
                vectors=vectors,
            )
            landed, entry.vectors_landed = entry.vectors_landed, set()
            if landed:
                stored = await self._phrase_vectors(
                    current.id, story.phrase_texts(landed), encode_missing=False
                )
                if stored is not None:
                    story = story.with_vectors(landed, stored)
            entry.story = story

    async def _entities(self, account_id: str) -> list[Entity]:
        return [entity_from_document(d) for d in await self._stores.entities.list(account_id)]
