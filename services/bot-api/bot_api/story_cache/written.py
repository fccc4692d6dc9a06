"""The phrases a write gives a story, queued for their vectors by the process that took it.

A compile queues the phrases the store has no vector for, but only when the story is
compiled here (its first query, an edit after that, a conversation-test run): a story
just imported or edited, before anyone asks it, would read `phrasesAwaitingMeaning` 0
while none of its new phrases has a vector yet. This listener of the change feed hears
each write made here (an interaction created or changed, an import, a restore, a change
of the story's `language` or `answerAnyLanguage`) and queues the written phrases whose
vector the store lacks: one batched read of the store per story and round, never one per
phrase.

It works in the background, one story at a time (the story read, its phrase texts worked
out in a worker thread), so a write's response never waits, whatever the story's size.
The writes of a story heard before its turn are taken together, and the queue
(story_cache/vectors.py) keeps the stories fair and each one's waiting phrases within
its own phrases; a compile that queues the same interaction later, or did before,
replaces its texts with what is still missing and leaves them this replica's to encode,
so nothing is encoded twice. Another replica compiling the write awaits these vectors
from this one (story_cache/queues.py).
"""

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass, field

from bot_api.background import Drain
from bot_api.changes import Change, StoryCreated, StoryDeleted, StoryEdited
from bot_api.engine.semantic import interaction_texts, representatives
from bot_api.entities.repository import EntityStore
from bot_api.interactions.repository import InteractionStore
from bot_api.stories.repository import StoryStore
from bot_api.story_cache.compiler import VectorsLanded
from bot_api.story_cache.vectors import RETRY_SECONDS, PhraseVectorService

log = logging.getLogger(__name__)


@dataclass
class _Written:
    """What was written to a story since its phrases were last queued."""

    account_id: str
    every_interaction: bool = False
    interaction_ids: set[str] = field(default_factory=set)


class WrittenPhrases:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        entities: EntityStore,
        vectors: PhraseVectorService,
        landed: VectorsLanded,
        retry_seconds: float = RETRY_SECONDS,
    ) -> None:
        """`landed`: told as the queued interactions' vectors are stored (the story
        cache, so that a story it keeps takes them in)."""
        self._stories = stories
        self._interactions = interactions
        self._entities = entities
        self._vectors = vectors
        self._landed = landed
        self._retry_seconds = retry_seconds
        self._due: OrderedDict[str, _Written] = OrderedDict()
        """By story id, the one written first first."""
        self._worker = Drain(self._queue_due)

    async def changed(self, change: Change) -> None:
        match change:
            case StoryCreated() | StoryEdited(language_changed=True):
                self._written(change.account_id, change.story_id).every_interaction = True
            case StoryEdited(interaction_ids=ids) if ids:
                self._written(change.account_id, change.story_id).interaction_ids |= ids
            case StoryDeleted():
                self._due.pop(change.story_id, None)
        if self._due:
            self._worker.wake()

    async def idle(self) -> None:
        """Wait until every write heard so far has its phrases queued."""
        await self._worker.idle()

    async def close(self) -> None:
        await self._worker.close()

    def _written(self, account_id: str, story_id: str) -> _Written:
        return self._due.setdefault(story_id, _Written(account_id))

    async def _queue_due(self) -> None:
        while self._due:
            story_id, written = self._due.popitem(last=False)
            try:
                await self._queue(story_id, written)
            except Exception:
                log.exception(
                    "phrases written to story %s not queued for their vectors; tried again in %g s",
                    story_id,
                    self._retry_seconds,
                )
                again = self._written(written.account_id, story_id)
                again.every_interaction |= written.every_interaction
                again.interaction_ids |= written.interaction_ids
                await asyncio.sleep(self._retry_seconds)

    async def _queue(self, story_id: str, written: _Written) -> None:
        """The written interactions' phrase texts (as the story's encoder reads them,
        slots as their entities' values) that the store lacks, queued."""
        story = await self._stories.get(written.account_id, story_id)
        encoder = None if story is None else self._vectors.encoders.for_story(story.settings)
        if story is None or encoder is None:
            self._vectors.forget(story_id)  # deleted, or no model reads its language now
            return
        wanted = set(story.structure.contexts)
        if not written.every_interaction:
            wanted &= written.interaction_ids
        if not wanted:
            return
        found = await self._interactions.find(story.id, wanted)
        entities = [stored.entity for stored in await self._entities.list(story.account_id)]
        texts = await asyncio.to_thread(
            interaction_texts,
            found.values(),
            representatives(entities),
            story.settings.multilingual,
        )
        key = (written.account_id, story.id, None)

        async def landed(interaction_ids: set[str]) -> None:
            await self._landed(key, interaction_ids)

        await self._vectors.load(story.id, encoder, texts, landed, written_here=True)
