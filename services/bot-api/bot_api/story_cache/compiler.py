"""Compiled stories made from the database: a story compiled whole, an earlier value with
what changed since taken in, and the semantic stage added to a story compiled lexically.

This is the one home of phrase vectors for answering: which a compile or an edit reads,
which are queued for encoding, and how those that land later are taken in. The story
cache (story_cache/cache.py) decides when to call it and keeps what it makes.

The work runs beside the event loop, shared fairly between accounts (shared/fair_work.py):
a story is compiled a chunk of `CHUNK_PHRASES` phrases at a time (engine/story.py
`StoryCompile`), each chunk a job of its own, so another account's compile (a small story
at once) takes its turn between two chunks of a large one, and an account holds at most
one of the `COMPILE_THREADS`. An account compiles at most `COMPILES_PER_ACCOUNT` stories
at once, and reads one story's interactions at a time (`READS_PER_ACCOUNT`), so what
one account holds in memory for compiling, and asks of the database, is bounded whatever
the number of requests it sends; its chunks wait while it reads, so that each of its cold
stories is read soon enough to answer from a part. A compile under way
(`Compiling`) can be asked for the story compiled so far (`partial`), for a query that
cannot wait for its end.
"""

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from bot_api.domain.entities import Entity
from bot_api.domain.interactions import Interaction
from bot_api.domain.settings import Settings
from bot_api.engine.semantic import Encoder, PhraseVectors
from bot_api.engine.story import CompiledStory, StoryCompile
from bot_api.entities.repository import EntityStore
from bot_api.interactions.repository import InteractionStore
from bot_api.metrics import STORY_COMPILE_SECONDS
from bot_api.stories.repository import StoryStore
from bot_api.story_cache.account_slots import AccountSlots
from bot_api.story_cache.vectors import PhraseVectorService
from bot_api.transfer.service import StoryUpload
from bot_api.versions.repository import StoryVersion, VersionStore
from shared.errors import NotFound
from shared.fair_work import FairWork

CHUNK_PHRASES = 2000
"""Phrases compiled in one job: about 50 ms of CPU (a story at the limits is 49 chunks,
1.9 s of CPU in chunks, 2.0 s at once, bench/compile_fairness.py), so another account's
compile waits about that long for a thread. Making the index at the end is one job of
0.4 s."""
COMPILE_THREADS = 2
"""An account holds one: another account's compile starts at once even while a chunk
of a large story runs (compiling holds the interpreter, so more threads only wait)."""
COMPILES_PER_ACCOUNT = 5
"""Stories of one account compiled at once: each holds its interactions and what is
read of their phrases (about the compiled story's size) until it is done. More of them
wait their turn; one account's waiting never delays another's."""
INTERACTIONS_READ_AT_ONCE = 500
"""A story's interactions are read in finds of this many, so that other requests' calls
to the database take turns between them (the embedded server answers one call at a
time: a 5,000-interaction find held every other call for 2.5 to 3 s)."""
READS_PER_ACCOUNT = 1
"""Stories of one account whose interactions are read from the database at once: the
story asked for first is read first, and can answer within its query's budget. Five
reads at the limits at once took 14.8 s together, and another account's first query
answered 503 at 10 s (bench/compile_fairness.py); with one read at a time, 500
interactions a find, it answered 200 in 0.9 s.

The account's compile chunks wait while it reads (`AccountSlots.unused`): compiling holds
the interpreter, and beside it a read of a story at the limits took 2.3 s instead of 1 s,
so of 5 cold stories asked for at once the last was read after 10.6 s and its first query
answered 503. With the reads first, all five were read within 5 s and each first query
answered from a part of its story within 6.1 s."""

StoryKey = tuple[str, str, str | None]
"""(account id, story id, version id: None for the draft)"""
ReadVersion = Callable[[StoryVersion], StoryUpload]
"""A version's document read back as the story it was (schemas.versions.StoryDocuments)."""
VectorsLanded = Callable[[StoryKey, set[str]], Awaitable[None]]
"""Told when the phrase vectors of these interactions of a story are stored."""
T = TypeVar("T")


@dataclass
class Compiling:
    """A compile under way, as far as it went: what `StoryCompiler.partial` reads."""

    story: StoryCompile | None = None
    """Set once the story's interactions are read and its chunks are being compiled."""
    begun: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a chunk is compiled: a partial story can be made."""


@dataclass
class Marks:
    """What changed since a story was compiled, for its next query to take in."""

    story: bool = False
    interactions: set[str] = field(default_factory=set)
    entities: bool = False
    entities_written_here: bool = False
    """An entity edit among them was made here: its new phrase vectors are ours to encode."""
    vectors_landed: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return self.story or bool(self.interactions) or self.entities or bool(self.vectors_landed)

    def merge(self, other: "Marks") -> None:
        self.story |= other.story
        self.interactions |= other.interactions
        self.entities |= other.entities
        self.entities_written_here |= other.entities_written_here
        self.vectors_landed |= other.vectors_landed


@dataclass(frozen=True)
class SemanticStage:
    """A story's semantic index built from the vectors stored when it was read, by the
    encoder its settings chose, and the phrases that had none (to be encoded)."""

    indexed: CompiledStory
    encoder: Encoder
    missing: dict[str, list[str]]


class StoryCompiler:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        entities: EntityStore,
        versions: VersionStore,
        vectors: PhraseVectorService | None,
        landed: VectorsLanded,
        read_version: ReadVersion | None = None,
        work: FairWork | None = None,
    ) -> None:
        """`read_version`: how a version's document is read (None: no version is
        compiled, as in tests of the draft alone); `work`: where compiles run (a test's
        own; by default `COMPILE_THREADS` threads of their own)."""
        self._stories = stories
        self._interaction_store = interactions
        self._entity_store = entities
        self._versions = versions
        self._read_version = read_version
        self._vectors = vectors
        self._landed = landed
        self._work = FairWork(COMPILE_THREADS, "story-compile") if work is None else work
        self._compiling = AccountSlots(COMPILES_PER_ACCOUNT)
        self._reading = AccountSlots(READS_PER_ACCOUNT)
        self._adding_semantic = asyncio.Lock()

    def close(self) -> None:
        """Stop the worker threads; a compile under way is abandoned."""
        self._work.close()

    def encoder_for(self, settings: Settings) -> Encoder | None:
        """The encoder of a story with these settings; None: no semantic stage."""
        return None if self._vectors is None else self._vectors.encoders.for_story(settings)

    def same_encoder(self, before: Settings, after: Settings) -> bool:
        """Whether a story's phrase vectors stay those of the same model and phrases (a
        story of several languages is read with its translated phrases too)."""
        model = _model(self.encoder_for(before)) == _model(self.encoder_for(after))
        return model and before.multilingual == after.multilingual

    async def compile(self, key: StoryKey, progress: Compiling | None = None) -> CompiledStory:
        """The story compiled lexically from what is stored now, or from its version;
        `progress` is told of the compile under way."""
        account_id, story_id, version_id = key
        progress = Compiling() if progress is None else progress
        if version_id is not None:
            return await self._compile_version(account_id, story_id, version_id, progress)
        story = await self._stories.get(account_id, story_id)
        if story is None:
            raise NotFound(f"no story {story_id}")
        async with self._compiling.held(account_id):
            async with self._reading.held(account_id):
                found = await self._interactions(story.id, list(story.structure.contexts))
                entities = await self._entities(account_id)
            return await self._in_chunks(
                account_id,
                StoryCompile(story.id, story.settings, story.structure, found.values(), entities),
                progress,
            )

    async def partial(self, account_id: str, progress: Compiling) -> CompiledStory | None:
        """The story as compiled so far (engine/story.py `StoryCompile` says what it may
        miss); None before its first chunk is compiled."""
        story = progress.story
        if story is None or not story.read:
            return None
        return await self._work.run(account_id, story.story)

    async def _compile_version(
        self, account_id: str, story_id: str, version_id: str, progress: Compiling
    ) -> CompiledStory:
        """A version as it was frozen: its settings, structure, interactions (under the
        draft's ids) and the entities its document holds."""
        async with self._compiling.held(account_id):
            async with self._reading.held(account_id):
                version = await self._versions.get(account_id, story_id, version_id)
                if version is None or self._read_version is None:
                    raise NotFound(f"no version {version_id} of story {story_id}")
                story = await self._in_worker(
                    account_id, functools.partial(self._read_version, version)
                )
            return await self._in_chunks(
                account_id,
                StoryCompile(
                    story_id,
                    story.settings,
                    story.structure,
                    story.interactions.values(),
                    story.entities,
                ),
                progress,
            )

    async def _in_chunks(
        self, account_id: str, story: StoryCompile, progress: Compiling
    ) -> CompiledStory:
        """The story compiled a chunk at a time, each a job of the account's."""
        started = time.perf_counter()
        progress.story = story
        while not story.done:
            await self._reading.unused(account_id)
            await self._work.run(account_id, functools.partial(story.step, CHUNK_PHRASES))
            progress.begun.set()
        compiled = await self._work.run(account_id, story.story)
        STORY_COMPILE_SECONDS.observe(time.perf_counter() - started)
        return compiled

    async def edited(
        self, key: StoryKey, current: CompiledStory, marks: Marks, semantic_pending: bool
    ) -> CompiledStory:
        """`current` with what the marks name read again and taken in. While the story's
        semantic stage is being added (`semantic_pending`), or when the new settings
        choose another encoder (a stage of its own is then due), phrase vectors are left
        to the stage. A version never changes: only the vectors its draft's encoding
        stored since are taken in."""
        if key[2] is not None:
            encoder = self.encoder_for(current.settings)
            if encoder is None or semantic_pending or not marks.vectors_landed:
                return current
            return await self.with_stored_vectors(key, encoder, current, marks.vectors_landed)
        record = None
        if marks.story:
            record = await self._stories.get(key[0], current.id)
            if record is None:
                raise NotFound(f"no story {current.id}")
        structure = current.structure if record is None else record.structure
        wanted = {i for i in marks.interactions if i in structure}
        found = await self._interaction_store.find(current.id, wanted) if wanted else {}
        entities = await self._entities(key[0]) if marks.entities else None
        interactions = list(found.values())
        settings = current.settings if record is None else record.settings
        encoder = self.encoder_for(settings)
        leave_to_stage = semantic_pending or not self.same_encoder(current.settings, settings)
        vectors = None
        if encoder is not None and not leave_to_stage:
            texts = current.to_encode(interactions, entities)
            here = marks.entities_written_here  # an interaction edited here is written.py's
            vectors = await self._phrase_vectors(key, encoder, texts, written_here=here)
        story = await self._in_worker(
            key[0],
            functools.partial(
                current.edited,
                settings=None if record is None else record.settings,
                structure=None if record is None else record.structure,
                interactions=interactions,
                entities=entities,
                vectors=vectors,
            ),
        )
        if marks.vectors_landed and encoder is not None and not leave_to_stage:
            story = await self.with_stored_vectors(key, encoder, story, marks.vectors_landed)
        return story

    async def semantic_stage(self, key: StoryKey, snapshot: CompiledStory) -> SemanticStage | None:
        """The snapshot's phrase vectors read and indexed, one story at a time (so one
        story's vectors are in memory as read: up to 73 MiB at the limits); None without
        an encoder."""
        encoder = self.encoder_for(snapshot.settings)
        if encoder is None:
            return None
        async with self._adding_semantic:
            texts = await self._in_worker(
                key[0], functools.partial(snapshot.phrase_texts, snapshot.interactions)
            )
            vectors = await self._phrase_vectors(key, encoder, texts, encode_missing=False)
            missing = await self._in_worker(key[0], functools.partial(vectors.missing, texts))
            indexed = await self._in_worker(
                key[0], functools.partial(snapshot.with_vectors, snapshot.interactions, vectors)
            )
        return SemanticStage(indexed, encoder, missing)

    async def with_semantic_stage(
        self, key: StoryKey, current: CompiledStory, stage: SemanticStage, due: set[str]
    ) -> CompiledStory:
        """`current` (the story as it is now, edited since the stage's snapshot, or not)
        with the stage's index, the vectors of the interactions changed since (or `due`:
        whose vectors landed meanwhile) read in, and the phrases still without a vector
        queued for encoding."""
        changed = due | current.changed_since(stage.indexed)
        story = current.with_semantic_of(stage.indexed)
        if changed:
            changed_texts = await self._in_worker(
                key[0], functools.partial(story.phrase_texts, changed)
            )
            stored = await self._phrase_vectors(
                key, stage.encoder, changed_texts, encode_missing=key[2] is None
            )
            story = await self._in_worker(
                key[0], functools.partial(story.with_vectors, changed, stored)
            )
        if self._vectors is not None and key[2] is None:
            # A version's phrases are encoded by its draft (the same ids, mostly the same
            # texts): one queue per story, told of its own interactions.
            unchanged = {i: ts for i, ts in stage.missing.items() if i not in changed}
            self._vectors.enqueue(key[1], stage.encoder, unchanged, self._landed_for(key))
        return story

    async def with_stored_vectors(
        self, key: StoryKey, encoder: Encoder, story: CompiledStory, interaction_ids: set[str]
    ) -> CompiledStory:
        """The story with the stored vectors of these interactions (that landed since)."""
        stored = await self._phrase_vectors(
            key, encoder, story.phrase_texts(interaction_ids), encode_missing=False
        )
        return await self._in_worker(
            key[0], functools.partial(story.with_vectors, interaction_ids, stored)
        )

    async def _phrase_vectors(
        self,
        key: StoryKey,
        encoder: Encoder,
        texts: dict[str, list[str]],
        encode_missing: bool = True,
        written_here: bool = False,
    ) -> PhraseVectors:
        """The stored vectors of these texts; with `encode_missing`, the missing queued:
        awaited from the replica that wrote them, unless `written_here` (queues.py)."""
        assert self._vectors is not None, "an encoder was chosen, so vectors are on"
        landed = self._landed_for(key) if encode_missing else None
        return await self._vectors.load(key[1], encoder, texts, landed, written_here=written_here)

    def _landed_for(self, key: StoryKey) -> Callable[[set[str]], Awaitable[None]]:
        async def landed(interaction_ids: set[str]) -> None:
            await self._landed(key, interaction_ids)

        return landed

    async def _in_worker(self, account_id: str, make: Callable[[], T]) -> T:
        return await self._work.run(account_id, make)

    async def _interactions(self, story_id: str, ids: list[str]) -> dict[str, Interaction]:
        """The story's interactions, read `INTERACTIONS_READ_AT_ONCE` at a time."""
        found: dict[str, Interaction] = {}
        for start in range(0, len(ids), INTERACTIONS_READ_AT_ONCE):
            page = ids[start : start + INTERACTIONS_READ_AT_ONCE]
            found |= await self._interaction_store.find(story_id, page)
        return found

    async def _entities(self, account_id: str) -> list[Entity]:
        return [stored.entity for stored in await self._entity_store.list(account_id)]


def _model(encoder: Encoder | None) -> str | None:
    return None if encoder is None else encoder.model_id
