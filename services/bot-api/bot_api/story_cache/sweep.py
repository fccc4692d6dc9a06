"""Phrase vectors no story uses any more are removed from `phrase_vectors`.

A vector's key depends on the text as the encoder reads it, entity values included (a
slot reads as its entity's first value), so what a story needs is worked out from its
current phrases and entities, not counted per interaction. A story is swept a while
after a change made in this process (an edit, its deletion, an entity edit of its
account): its current phrases' keys are the ones it keeps, and it is taken off every
other vector it had marked; a vector no story marks is deleted (`story_cache/repository.py`).
Vectors can be computed again, so a sweep that loses a race with an edit costs an
encoding, never an answer: the phrase is scored lexically until its vector is back.
"""

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterable

from bot_api.background import Drain
from bot_api.changes import Change, EntitiesEdited, StoryDeleted, StoryEdited
from bot_api.domain.entities import Entity
from bot_api.domain.interactions import Interaction
from bot_api.engine.semantic import interaction_texts, representatives, vector_key
from bot_api.entities.repository import EntityStore
from bot_api.interactions.repository import InteractionStore
from bot_api.stories.repository import StoryStore
from bot_api.story_cache.repository import VectorStore
from bot_api.story_cache.vectors import PhraseVectorService
from shared.pages import MAX_PAGE, Page

log = logging.getLogger(__name__)

DELAY_SECONDS = 60.0
"""A story is swept this long after its change is heard: a burst of edits (30 edits of
one interaction in a minute) costs one sweep, which reads the whole story."""
LIMIT = 10_000
"""Vectors a story is taken off per sweep (ten pages of ids); a story with more is swept
again in the next round, after the other stories due."""


class VectorSweeper:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        entities: EntityStore,
        store: VectorStore,
        vectors: PhraseVectorService,
        delay_seconds: float = DELAY_SECONDS,
    ) -> None:
        self._stories = stories
        self._interactions = interactions
        self._entities = entities
        self._store = store
        self._vectors = vectors
        self._delay = delay_seconds
        self._due: OrderedDict[str, str] = OrderedDict()
        """Story id -> its account id, the stories to sweep."""
        self._accounts_due: set[str] = set()
        """Accounts whose entities changed: all their stories are due."""
        self._worker = Drain(self._sweep_due)

    async def changed(self, change: Change) -> None:
        match change:
            case StoryEdited() | StoryDeleted():
                if isinstance(change, StoryDeleted):
                    self._vectors.forget(change.story_id)
                self._due[change.story_id] = change.account_id
            case EntitiesEdited(account_id=account_id):
                self._accounts_due.add(account_id)
            case _:
                return
        self._worker.wake()

    async def idle(self) -> None:
        """Wait until everything queued so far is done."""
        await self._worker.idle()

    async def close(self) -> None:
        await self._worker.close()

    async def _sweep_due(self) -> None:
        while self._due or self._accounts_due:
            await asyncio.sleep(self._delay)
            accounts, self._accounts_due = self._accounts_due, set()
            for account_id in accounts:
                try:
                    for story_id in await self._story_ids(account_id):
                        self._due[story_id] = account_id
                except Exception:
                    log.exception("stories of account %s not listed; tried again", account_id)
                    self._accounts_due.add(account_id)
            due, self._due = self._due, OrderedDict()
            for story_id, account_id in due.items():
                try:
                    keep = await self._keys_in_use(account_id, story_id)
                    if await self._store.sweep(story_id, keep, LIMIT) == LIMIT:
                        self._due.setdefault(story_id, account_id)
                except Exception:
                    log.exception("phrase vectors of story %s not swept; tried again", story_id)
                    self._due.setdefault(story_id, account_id)

    async def _keys_in_use(self, account_id: str, story_id: str) -> set[str]:
        """The vector keys of the story's current phrases (none once it is deleted, or
        when no encoder reads it); those of the model it read before are let go."""
        story = await self._stories.get(account_id, story_id)
        encoder = None if story is None else self._vectors.encoders.for_story(story.settings)
        if story is None or encoder is None:
            return set()
        found = await self._interactions.find(story.id, story.structure.contexts)
        interactions = list(found.values())
        entities = [stored.entity for stored in await self._entities.list(account_id)]
        translated = story.settings.multilingual
        return await asyncio.to_thread(_keys, encoder.model_id, interactions, entities, translated)

    async def _story_ids(self, account_id: str) -> list[str]:
        ids: list[str] = []
        while True:
            page = await self._stories.list(account_id, Page(len(ids), MAX_PAGE))
            ids += [str(s["_id"]) for s in page]
            if len(page) < MAX_PAGE:
                return ids


def _keys(
    model_id: str, interactions: Iterable[Interaction], entities: list[Entity], translated: bool
) -> set[str]:
    texts = interaction_texts(interactions, representatives(entities), translated)
    return {vector_key(model_id, t) for phrases in texts.values() for t in phrases}
