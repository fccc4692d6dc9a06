"""Compiled stories kept in this process, refreshed only where an edit touched them.

A query for a cached, unchanged story reads nothing from the database. A change marks
the story stale; the next query for it re-reads just the story document, the
interactions the change named, and the entities if they changed, and replaces the
compiled story with one made from the old and what changed (re-indexing only those
interactions). A turn holding the old value finishes with it.

Compiling runs in a worker thread, so the event loop keeps answering meanwhile, and one
story at a time (reading its interactions included), so what compiles in flight is one
story whatever the number of requests asking for different ones. The
stories kept are bounded by a memory budget: past it, the least recently used are
dropped (and compiled again when asked for). Entries are keyed by account and story, so
another account's story takes the same path as a missing one: a read that finds
nothing. What a request names leaves nothing behind unless it is a story of its own
account (docs/reliability.md).

A story is first compiled lexically, and its first queries are answered from that
while its semantic stage is added in the background: the stored vectors of its phrases
read (most of a large story's compile: 88,450 vectors took 6 to 8 s), its semantic
index built, then the edits made meanwhile taken in. Phrases still without a vector
are encoded in the background, and when their vectors land their interactions are
refreshed like any other edit.
"""

import asyncio
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from bot_api.changes import Change, EntitiesEdited, StoryCreated, StoryDeleted, StoryEdited
from bot_api.conversations.vectors import PhraseVectorService
from bot_api.domain.entities import Entity
from bot_api.engine.semantic import PhraseVectors
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
from shared.budget import beyond_request
from shared.errors import NotFound
from shared.pages import Page

log = logging.getLogger(__name__)

_Key = tuple[str, str]
"""(account id, story id)"""
T = TypeVar("T")

SEMANTIC_WAIT_SECONDS = 1.0
"""How long the query that compiled a story waits for its semantic stage before it is
answered lexically: the stored vectors are read at about 12,000 per second (88,450 in
6 to 8 s), so a story of up to ~10,000 phrases is answered with them from its first
query, and a larger one within its request budget."""
SEMANTIC_RETRY_SECONDS = 5.0
"""A semantic stage whose vectors could not be read is tried again this much later."""


@dataclass
class _Marks:
    """What changed since a story was compiled, for its next query to take in."""

    story: bool = False
    interactions: set[str] = field(default_factory=set)
    entities: bool = False
    vectors_landed: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return self.story or bool(self.interactions) or self.entities or bool(self.vectors_landed)

    def merge(self, other: "_Marks") -> None:
        self.story |= other.story
        self.interactions |= other.interactions
        self.entities |= other.entities
        self.vectors_landed |= other.vectors_landed


@dataclass
class _Entry:
    story: CompiledStory
    size: int
    """The compiled story's estimated bytes (CompiledStory.size_estimate)."""
    marks: _Marks = field(default_factory=_Marks)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while changes are taken in: a query arriving then waits, since the marks it
    would see are already taken (else it would be answered by the story from before)."""
    semantic: "asyncio.Task[None] | None" = None
    """Adding the story's semantic stage, while it runs: refreshes meanwhile leave the
    phrase vectors to it."""
    vectors_due: set[str] = field(default_factory=set)
    """Interactions whose vectors landed while the semantic stage was being added."""


class StoryCache:
    def __init__(
        self,
        stores: Stores,
        vectors: PhraseVectorService | None,
        budget_bytes: int,
        retry_seconds: float = SEMANTIC_RETRY_SECONDS,
    ) -> None:
        """`budget_bytes`: the compiled stories kept may hold this much (estimated); the
        story just compiled is kept even if it alone is larger."""
        self._stores = stores
        self._vectors = vectors
        self._retry_seconds = retry_seconds
        self._budget = budget_bytes
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        """Least recently used first."""
        self._size = 0
        self._oldest: dict[str, str | None] = {}
        self._loading: dict[_Key, asyncio.Task[_Entry]] = {}
        self._changes_while_loading: dict[_Key, int] = {}
        """Changes heard for each story being loaded, only while it is."""
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="story-compile")
        self._compiling = asyncio.Lock()
        self._adding_semantic = asyncio.Lock()

    def close(self) -> None:
        """Stop the worker thread; a compile under way is abandoned, and so is a
        semantic stage being added."""
        for entry in self._entries.values():
            if entry.semantic is not None:
                entry.semantic.cancel()
        self._worker.shutdown(wait=False, cancel_futures=True)

    async def idle(self) -> None:
        """Wait until every story kept has its semantic stage added."""
        tasks = [e.semantic for e in self._entries.values() if e.semantic is not None]
        if tasks:
            await asyncio.wait(tasks)

    @property
    def size(self) -> int:
        """The estimated bytes of the compiled stories kept."""
        return self._size

    async def story(self, account_id: str, story_id: str | None) -> CompiledStory:
        """The account's story (its oldest when no id is given), compiled and current."""
        if story_id is None:
            story_id = await self._oldest_story(account_id)
        key = (account_id, story_id)
        entry = self._entries.get(key)
        if entry is None:
            STORY_CACHE_MISSES.inc()
            entry = await self._load(key)
            if entry.semantic is not None:
                await asyncio.wait([entry.semantic], timeout=SEMANTIC_WAIT_SECONDS)
        else:
            STORY_CACHE_HITS.inc()
            self._entries.move_to_end(key)
        if entry.marks or entry.lock.locked():
            await self._refresh(key, entry)
        return entry.story

    async def changed(self, change: Change) -> None:
        """A change made here or reported by another replica. Any story change may change
        which story is an account's oldest."""
        match change:
            case StoryCreated() | StoryEdited() | StoryDeleted():
                key = (change.account_id, change.story_id)
                if key in self._changes_while_loading:
                    self._changes_while_loading[key] += 1
                self._oldest.pop(change.account_id, None)
                entry = self._entries.get(key)
                if isinstance(change, StoryDeleted):
                    self._drop(key)
                elif entry is not None:
                    entry.marks.story = True
                    if isinstance(change, StoryEdited):
                        entry.marks.interactions |= change.interaction_ids
            case EntitiesEdited(account_id=account_id):
                for key in self._changes_while_loading:
                    if key[0] == account_id:
                        self._changes_while_loading[key] += 1
                for key, entry in self._entries.items():
                    if key[0] == account_id:
                        entry.marks.entities = True

    def _landed(self, key: _Key) -> Callable[[set[str]], Awaitable[None]]:
        """Told when the phrase vectors of these interactions are stored: the story's next
        query takes them in."""

        async def landed(interaction_ids: set[str]) -> None:
            if key in self._changes_while_loading:
                self._changes_while_loading[key] += 1
            entry = self._entries.get(key)
            if entry is not None:
                entry.marks.vectors_landed |= interaction_ids

        return landed

    def _semantic(self, language: str) -> bool:
        return self._vectors is not None and language in self._vectors.encoder.languages

    async def _phrase_vectors(
        self, key: _Key, texts: dict[str, list[str]], encode_missing: bool = True
    ) -> PhraseVectors | None:
        if self._vectors is None:
            return None
        landed = self._landed(key) if encode_missing else None
        return await self._vectors.load(key[1], texts, landed)

    async def _oldest_story(self, account_id: str) -> str:
        if account_id not in self._oldest:
            stories = await self._stores.stories.list(account_id, Page(limit=1))
            self._oldest[account_id] = str(stories[0]["_id"]) if stories else None
        oldest = self._oldest[account_id]
        if oldest is None:
            raise NotFound("this account has no story yet")
        return oldest

    async def _load(self, key: _Key) -> _Entry:
        """The story compiled once for all who ask for it meanwhile."""
        task = self._loading.get(key)
        if task is None:
            task = beyond_request(self._load_current(key))
            self._loading[key] = task
            self._changes_while_loading[key] = 0
        return await asyncio.shield(task)

    async def _load_current(self, key: _Key) -> _Entry:
        """Compiled again while a change arrived during the compile; then kept."""
        try:
            while True:
                changes_before = self._changes_while_loading[key]
                entry = await self._compile(key)
                if self._changes_while_loading[key] == changes_before:
                    self._keep(key, entry)
                    if self._semantic(entry.story.settings.language):
                        entry.semantic = beyond_request(self._add_semantic(key, entry))
                    return entry
        finally:
            del self._loading[key]
            del self._changes_while_loading[key]

    async def _compile(self, key: _Key) -> _Entry:
        account_id, story_id = key
        story = await self._stores.stories.get(account_id, story_id)
        if story is None:
            raise NotFound(f"no story {story_id}")
        async with self._compiling:
            documents = await self._stores.interactions.find(story.id, story.structure.contexts)
            interactions = [interaction_from_document(d) for d in documents.values()]
            entities = await self._entities(account_id)
            started = time.perf_counter()
            compiled = await self._in_worker(
                functools.partial(
                    CompiledStory.compile,
                    story.id,
                    story.settings,
                    story.structure,
                    interactions,
                    entities,
                )
            )
            STORY_COMPILE_SECONDS.observe(time.perf_counter() - started)
        return _Entry(compiled, compiled.size_estimate())

    async def _add_semantic(self, key: _Key, entry: _Entry) -> None:
        """Give a story compiled lexically its semantic stage (tried again a while later
        if the database fails): its queries are answered lexically until then."""
        try:
            while True:
                try:
                    await self._try_add_semantic(key, entry)
                    return
                except Exception:
                    log.exception(
                        "phrase vectors of story %s could not be read; tried again in %g s",
                        key[1],
                        self._retry_seconds,
                    )
                    await asyncio.sleep(self._retry_seconds)
        finally:
            entry.semantic = None

    async def _try_add_semantic(self, key: _Key, entry: _Entry) -> None:
        """The story's phrase vectors read and indexed, one story at a time (so one
        story's vectors are in memory as read: up to 73 MiB at the limits); then, under
        the story's lock, the vectors of the interactions edited or landed meanwhile
        read, and the phrases still without a vector queued for encoding."""
        async with self._adding_semantic:
            snapshot = entry.story
            texts = await self._in_worker(
                functools.partial(snapshot.phrase_texts, snapshot.interactions)
            )
            vectors = await self._phrase_vectors(key, texts, encode_missing=False)
            if vectors is None or self._entries.get(key) is not entry:
                return
            missing = await self._in_worker(functools.partial(vectors.missing, texts))
            indexed = await self._in_worker(
                functools.partial(snapshot.with_vectors, snapshot.interactions, vectors)
            )
            del vectors
        async with entry.lock:
            current = entry.story
            changed = entry.vectors_due | current.changed_since(snapshot)
            story = current.with_semantic_of(indexed)
            if changed:
                changed_texts = await self._in_worker(
                    functools.partial(story.phrase_texts, changed)
                )
                stored = await self._phrase_vectors(key, changed_texts)
                if stored is not None:
                    story = await self._in_worker(
                        functools.partial(story.with_vectors, changed, stored)
                    )
            if self._vectors is not None:
                unchanged = {i: ts for i, ts in missing.items() if i not in changed}
                self._vectors.enqueue(key[1], unchanged, self._landed(key))
            if self._semantic(current.settings.language):
                self._set_story(key, entry, story)
            entry.vectors_due = set()

    async def _refresh(self, key: _Key, entry: _Entry) -> None:
        """Read what the changes touched, then swap in the story made from it (made whole
        in a worker thread, so no turn sees half an edit). A refresh that fails (the
        database slow or away) leaves the changes marked for the next query."""
        async with entry.lock:
            if not entry.marks:
                return  # refreshed by the turn that held the lock before
            marks, entry.marks = entry.marks, _Marks()
            try:
                await self._take_in(key, entry, marks)
            except BaseException:
                entry.marks.merge(marks)
                raise

    async def _take_in(self, key: _Key, entry: _Entry, marks: _Marks) -> None:
        current = entry.story
        record = None
        if marks.story:
            record = await self._stores.stories.get(key[0], current.id)
            if record is None:
                self._drop(key)
                raise NotFound(f"no story {current.id}")
        structure = current.structure if record is None else record.structure
        wanted = {i for i in marks.interactions if i in structure}
        documents = await self._stores.interactions.find(current.id, wanted) if wanted else {}
        entities = await self._entities(key[0]) if marks.entities else None
        interactions = [interaction_from_document(d) for d in documents.values()]
        settings = current.settings if record is None else record.settings
        semantic_here = self._semantic(settings.language) and entry.semantic is None
        vectors = (
            await self._phrase_vectors(key, current.to_encode(interactions, entities))
            if semantic_here
            else None
        )
        story = await self._in_worker(
            functools.partial(
                current.edited,
                settings=None if record is None else record.settings,
                structure=None if record is None else record.structure,
                interactions=interactions,
                entities=entities,
                vectors=vectors,
            )
        )
        landed = marks.vectors_landed
        if landed and entry.semantic is not None:
            entry.vectors_due |= landed
        elif landed:
            stored = await self._phrase_vectors(
                key, story.phrase_texts(landed), encode_missing=False
            )
            if stored is not None:
                story = await self._in_worker(functools.partial(story.with_vectors, landed, stored))
        self._set_story(key, entry, story)

    def _set_story(self, key: _Key, entry: _Entry, story: CompiledStory) -> None:
        entry.story = story
        size = story.size_estimate()
        if self._entries.get(key) is entry:
            self._size += size - entry.size
            self._evict_past_budget()
        entry.size = size

    async def _in_worker(self, make: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._worker, make)

    def _keep(self, key: _Key, entry: _Entry) -> None:
        self._drop(key)
        self._entries[key] = entry
        self._size += entry.size
        self._evict_past_budget()

    def _evict_past_budget(self) -> None:
        """Drop the least recently used stories while past the budget (never the most
        recently used: a turn is waiting for it)."""
        while self._size > self._budget and len(self._entries) > 1:
            _, entry = self._entries.popitem(last=False)
            self._size -= entry.size
        STORY_CACHE_ENTRIES.set(len(self._entries))

    def _drop(self, key: _Key) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._size -= entry.size
            if entry.semantic is not None:
                entry.semantic.cancel()
        STORY_CACHE_ENTRIES.set(len(self._entries))

    async def _entities(self, account_id: str) -> list[Entity]:
        return [entity_from_document(d) for d in await self._stores.entities.list(account_id)]
