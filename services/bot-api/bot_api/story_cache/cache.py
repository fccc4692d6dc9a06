"""Compiled stories kept in this process, refreshed only where an edit touched them.

A query for a cached, unchanged story reads nothing from the database. A change marks
the story stale; the next query for it re-reads just the story document, the
interactions the change named, and the entities if they changed, and replaces the
compiled story with one made from the old and what changed (re-indexing only those
interactions). A turn holding the old value finishes with it.

Compiling runs beside the event loop, shared fairly between accounts, a chunk of a story
at a time (story_cache/compiler.py). A query (`story(..., hurried=True)`) waits for its
story's cold compile for `PARTIAL_SHARE` of the request budget (longer only while no
chunk is compiled yet), then is answered lexically from the part compiled so far
(engine/story.py `StoryCompile` says what that may miss; counted in
`parley_story_partial_answers` and logged), while the compile goes on beyond the request
and the next query is answered by the whole story. The stories kept are bounded by a
memory budget: past it, the least recently used are dropped (and compiled again when
asked for). Entries are keyed by account, story and version (None: the draft), so
another account's story takes the same path as a missing one: a read that finds nothing.
What a request names leaves nothing behind unless it is a story of its own account
(docs/reliability.md).

A story's published version (docs/versions.md) answers the public key: it is compiled
from its document and kept beside the draft, under the same budget. A version never
changes, so an edit of the draft leaves it be; the story's pointer to it is read again
after any change of the story, and a version no longer published is dropped then.

A story is first compiled lexically, and its first queries are answered from that
while its semantic stage is added in the background (story_cache/compiler.py): its
stored phrase vectors read (most of a large story's compile: 88,450 vectors took 6 to
8 s), its semantic index built, then the edits made meanwhile taken in. Phrases still
without a vector are encoded in the background, and when their vectors land their
interactions are refreshed like any other edit.
"""

import asyncio
import logging
from collections import OrderedDict

from bot_api.changes import Change, EntitiesEdited, StoryCreated, StoryDeleted, StoryEdited
from bot_api.engine.story import CompiledStory
from bot_api.entities.repository import EntityStore
from bot_api.interactions.repository import InteractionStore
from bot_api.metrics import (
    STORY_CACHE_ENTRIES,
    STORY_CACHE_HITS,
    STORY_CACHE_MISSES,
    STORY_PARTIAL_ANSWERS,
)
from bot_api.stories.repository import StoryStore
from bot_api.story_cache.compiler import Compiling, Marks, ReadVersion, StoryCompiler, StoryKey
from bot_api.story_cache.entries import (
    SEMANTIC_RETRY_SECONDS,
    Entry,
    Loading,
    first_chunk,
    semantic_stage,
)
from bot_api.story_cache.vectors import PhraseVectorService
from bot_api.versions.repository import VersionStore
from shared.budget import beyond_request
from shared.errors import NotFound
from shared.fair_work import FairWork
from shared.pages import Page

log = logging.getLogger(__name__)

PARTIAL_SHARE = 0.5
"""The share of the request budget a query waits for its story's cold compile before it
is answered from the part compiled so far: the other half is left for making that
partial story (30 ms of CPU after one chunk, 0.4 s for nearly all of a story at the
limits), the session and the answer."""


class StoryCache:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        entities: EntityStore,
        versions: VersionStore,
        vectors: PhraseVectorService | None,
        budget_bytes: int,
        retry_seconds: float = SEMANTIC_RETRY_SECONDS,
        read_version: ReadVersion | None = None,
        request_budget: float | None = None,
        work: FairWork | None = None,
    ) -> None:
        """`budget_bytes`: the compiled stories kept may hold this much (estimated); the
        story just compiled is kept even if it alone is larger. `read_version`: how a
        published version's document is read (None: the draft answers everyone).
        `request_budget`: a query's seconds (`REQUEST_BUDGET_SECONDS`), of which it
        waits `PARTIAL_SHARE` for a cold compile (None: it waits for the whole story).
        `work`: where compiles run (StoryCompiler)."""
        self._stories = stories
        self._interactions = interactions
        self._entities = entities
        self._versions = versions
        self._compiler = StoryCompiler(
            stories=stories,
            interactions=interactions,
            entities=entities,
            versions=versions,
            vectors=vectors,
            landed=self.vectors_landed,
            read_version=read_version,
            work=work,
        )
        self._retry_seconds = retry_seconds
        self._partial_after = None if request_budget is None else request_budget * PARTIAL_SHARE
        self._budget = budget_bytes
        self._entries: OrderedDict[StoryKey, Entry] = OrderedDict()
        """Least recently used first."""
        self._size = 0
        self._oldest: dict[str, str | None] = {}
        self._loading: dict[StoryKey, Loading] = {}
        self._changes_while_loading: dict[StoryKey, int] = {}
        """Changes heard for each story being loaded, only while it is."""
        self._published: dict[tuple[str, str], str | None] = {}
        """The published version of each (account, story) the public key asked for, as
        read since the story's last change."""
        self._story_changes = 0
        """Story changes heard: a published version read while one arrives is not kept."""

    def close(self) -> None:
        """Stop compiling; a compile under way is abandoned (one a query left to go on
        beyond it included), and so is a semantic stage being added."""
        for loading in self._loading.values():
            loading.task.cancel()
        for entry in self._entries.values():
            if entry.semantic is not None:
                entry.semantic.cancel()
        self._compiler.close()

    async def idle(self) -> None:
        """Wait until every story kept has its semantic stage added."""
        tasks = [e.semantic for e in self._entries.values() if e.semantic is not None]
        if tasks:
            await asyncio.wait(tasks)

    @property
    def size(self) -> int:
        """The estimated bytes of the compiled stories kept."""
        return self._size

    async def story(
        self,
        account_id: str,
        story_id: str | None,
        published: bool = False,
        hurried: bool = False,
    ) -> CompiledStory:
        """The account's story (its oldest when no id is given), compiled and current;
        with `published`, its published version if it has one. `hurried` (a query): a
        cold compile that runs long gives the part compiled so far (module docstring)."""
        if story_id is None:
            story_id = await self._oldest_story(account_id)
        version = await self._published_version(account_id, story_id) if published else None
        return await self._compiled((account_id, story_id, version), hurried)

    async def published_version(self, account_id: str, story_id: str) -> str | None:
        """The version the story's public key answers from (None: the draft)."""
        return await self._published_version(account_id, story_id)

    async def version(self, account_id: str, story_id: str, version_id: str) -> CompiledStory:
        """A version of the story, compiled (its conversation tests run against it, before
        it is published too); NotFound when the story has no such version."""
        return await self._compiled((account_id, story_id, version_id))

    async def _compiled(self, key: StoryKey, hurried: bool = False) -> CompiledStory:
        entry = self._entries.get(key)
        if entry is None:
            STORY_CACHE_MISSES.inc()
            loaded = await self._load(key, self._partial_after if hurried else None)
            if isinstance(loaded, CompiledStory):
                return loaded
            entry = loaded
            await semantic_stage(entry)
        else:
            STORY_CACHE_HITS.inc()
            self._entries.move_to_end(key)
        if entry.marks or entry.refreshing:
            await self._refresh(key, entry)
        return entry.story

    async def changed(self, change: Change) -> None:
        """A change made here or reported by another replica. Any story change may change
        which story is an account's oldest."""
        match change:
            case StoryCreated() | StoryEdited() | StoryDeleted():
                story = (change.account_id, change.story_id)
                key: StoryKey = (*story, None)
                deleted = isinstance(change, StoryDeleted)
                for loading in self._changes_while_loading:
                    if loading == key or (deleted and loading[:2] == story):
                        self._changes_while_loading[loading] += 1
                self._oldest.pop(change.account_id, None)
                self._published.pop(story, None)
                self._story_changes += 1
                entry = self._entries.get(key)
                if deleted:
                    for cached in [k for k in self._entries if k[:2] == story]:
                        self._drop(cached)
                elif entry is not None:
                    entry.marks.story = True
                    if isinstance(change, StoryEdited):
                        entry.marks.interactions |= change.interaction_ids
            case EntitiesEdited(account_id=account_id):
                # a version holds the entities it was frozen with
                for key in self._changes_while_loading:
                    if key[0] == account_id and key[2] is None:
                        self._changes_while_loading[key] += 1
                for key, entry in self._entries.items():
                    if key[0] == account_id and key[2] is None:
                        entry.marks.entities = True
                        entry.marks.entities_written_here |= not change.remote

    async def vectors_landed(self, key: StoryKey, interaction_ids: set[str]) -> None:
        """The phrase vectors of these interactions are stored: the story's next query
        takes them in, and so does its version's, which has the same ids."""
        for loading in self._changes_while_loading:
            if loading[:2] == key[:2]:
                self._changes_while_loading[loading] += 1
        for cached, entry in self._entries.items():
            if cached[:2] == key[:2]:
                entry.marks.vectors_landed |= interaction_ids

    async def _published_version(self, account_id: str, story_id: str) -> str | None:
        """The story's published version, read once after each change of the story; a
        version no longer published leaves the cache then."""
        story = (account_id, story_id)
        if story in self._published:
            return self._published[story]
        heard = self._story_changes
        record = await self._stories.get(account_id, story_id)
        if record is None:
            raise NotFound(f"no story {story_id}")
        if heard == self._story_changes:
            self._published[story] = record.published
            for stale in [k for k in self._entries if k[:2] == story and k[2] is not None]:
                if stale[2] != record.published:
                    self._drop(stale)
        return record.published

    async def _oldest_story(self, account_id: str) -> str:
        if account_id not in self._oldest:
            stories = await self._stories.list(account_id, Page(limit=1))
            self._oldest[account_id] = str(stories[0]["_id"]) if stories else None
        oldest = self._oldest[account_id]
        if oldest is None:
            raise NotFound("this account has no story yet")
        return oldest

    async def _load(self, key: StoryKey, partial_after: float | None) -> Entry | CompiledStory:
        """The story compiled once for all who ask for it meanwhile; after `partial_after`
        seconds (or once its first chunk is compiled, if later), the story as compiled so
        far (not kept: the compile goes on beyond the request)."""
        loading = self._loading.get(key)
        if loading is None:
            progress = Compiling()
            loading = Loading(beyond_request(self._load_current(key, progress)), progress)
            self._loading[key] = loading
            self._changes_while_loading[key] = 0
        if partial_after is not None:
            await asyncio.wait([loading.task], timeout=partial_after)
            if not loading.task.done():
                await first_chunk(loading)
            if not loading.task.done():
                partial = await self._compiler.partial(key[0], loading.progress)
                compiling = loading.progress.story
                if partial is not None and compiling is not None and not loading.task.done():
                    STORY_PARTIAL_ANSWERS.inc()
                    log.info(
                        "story %s answered from %d of its %d interactions compiled so far",
                        key[1],
                        compiling.read,
                        compiling.total,
                    )
                    return partial
        return await asyncio.shield(loading.task)

    async def _load_current(self, key: StoryKey, progress: Compiling) -> Entry:
        """Compiled again while a change arrived during the compile; then kept."""
        try:
            while True:
                changes_before = self._changes_while_loading[key]
                story = await self._compiler.compile(key, progress)
                if self._changes_while_loading[key] == changes_before:
                    entry = Entry(story, story.size_estimate())
                    self._keep(key, entry)
                    if self._compiler.encoder_for(story.settings) is not None:
                        entry.semantic = beyond_request(self._add_semantic(key, entry))
                    return entry
        finally:
            del self._loading[key]
            del self._changes_while_loading[key]

    async def _add_semantic(self, key: StoryKey, entry: Entry) -> None:
        """Give a story compiled lexically its semantic stage (tried again a while later
        if the database fails): its queries are answered lexically until then."""
        try:
            while True:
                try:
                    if await self._try_add_semantic(key, entry):
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

    async def _try_add_semantic(self, key: StoryKey, entry: Entry) -> bool:
        """The stage built from the story as compiled, then, under the story's lock, the
        edits and vectors landed meanwhile taken in. False: the story's settings chose
        another encoder meanwhile, so its stage is to be read again."""
        stage = await self._compiler.semantic_stage(key, entry.story)
        if stage is None or self._entries.get(key) is not entry:
            return True
        async with entry.lock:
            current = entry.story
            if not self._compiler.same_encoder(stage.indexed.settings, current.settings):
                return False
            story = await self._compiler.with_semantic_stage(key, current, stage, entry.vectors_due)
            self._set_story(key, entry, story)
            entry.vectors_due = set()
        return True

    async def _refresh(self, key: StoryKey, entry: Entry) -> None:
        """Read what the changes touched, then swap in the story made from it (made whole
        beside the event loop, so no turn sees half an edit). A refresh that fails (the
        database slow or away) leaves the changes marked for the next query."""
        async with entry.lock:
            if not entry.marks:
                return  # refreshed by the turn that held the lock before
            marks, entry.marks = entry.marks, Marks()
            entry.refreshing = True
            try:
                story = await self._compiler.edited(
                    key, entry.story, marks, semantic_pending=entry.semantic is not None
                )
            except NotFound:
                self._drop(key)
                raise
            except BaseException:
                entry.marks.merge(marks)
                raise
            finally:
                entry.refreshing = False
            if marks.vectors_landed and entry.semantic is not None:
                entry.vectors_due |= marks.vectors_landed
            switched = not self._compiler.same_encoder(entry.story.settings, story.settings)
            self._set_story(key, entry, story)
            if switched and entry.semantic is None:
                # another model reads the story now: its vectors are read whole, as at a start
                entry.semantic = beyond_request(self._add_semantic(key, entry))

    def _set_story(self, key: StoryKey, entry: Entry, story: CompiledStory) -> None:
        entry.story = story
        size = story.size_estimate()
        if self._entries.get(key) is entry:
            self._size += size - entry.size
            self._evict_past_budget()
        entry.size = size

    def _keep(self, key: StoryKey, entry: Entry) -> None:
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

    def _drop(self, key: StoryKey) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._size -= entry.size
            if entry.semantic is not None:
                entry.semantic.cancel()
        STORY_CACHE_ENTRIES.set(len(self._entries))
