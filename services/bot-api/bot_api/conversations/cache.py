"""Compiled stories kept in this process, refreshed only where an edit touched them.

A query for a cached, unchanged story reads nothing from the database. A reported
change marks the story stale; the next query for it re-reads just the story document,
the interactions the change named, and the entities if they changed, and applies them
to the compiled story (re-indexing only those interactions).
"""

import asyncio
from dataclasses import dataclass, field

from bot_api.engine.story import Settings, StoryModel
from bot_api.storage import Stores
from bot_api.storage.interactions import to_api
from shared.errors import NotFound


@dataclass
class _Entry:
    model: StoryModel
    account_id: str
    stale_story: bool = False
    stale_interactions: set[str] = field(default_factory=set)
    stale_entities: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class StoryCache:
    def __init__(self, stores: Stores) -> None:
        self._stores = stores
        self._entries: dict[str, _Entry] = {}
        self._oldest: dict[str, str | None] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._changes_seen: dict[str, int] = {}

    async def story(self, account_id: str, story_id: str | None) -> StoryModel:
        """The account's story (its oldest when no id is given), compiled and current."""
        if story_id is None:
            story_id = await self._oldest_story(account_id)
        entry = self._entries.get(story_id)
        if entry is None:
            entry = await self._load(account_id, story_id)
        if entry.account_id != account_id:
            raise NotFound(f"no story {story_id}")
        if entry.stale_story or entry.stale_interactions or entry.stale_entities:
            await self._refresh(entry)
        return entry.model

    async def story_changed(
        self, account_id: str, story_id: str, interaction_ids: frozenset[str]
    ) -> None:
        self._changes_seen[story_id] = self._changes_seen.get(story_id, 0) + 1
        entry = self._entries.get(story_id)
        if entry is not None:
            entry.stale_story = True
            entry.stale_interactions |= interaction_ids

    async def story_removed(self, account_id: str, story_id: str) -> None:
        self._changes_seen[story_id] = self._changes_seen.get(story_id, 0) + 1
        self._entries.pop(story_id, None)

    async def stories_listed(self, account_id: str) -> None:
        self._oldest.pop(account_id, None)

    async def entities_changed(self, account_id: str) -> None:
        for entry in self._entries.values():
            if entry.account_id == account_id:
                entry.stale_entities = True

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
            return entry

    async def _compile(self, account_id: str, story_id: str) -> _Entry | None:
        """The story compiled from the database, or None if it changed meanwhile."""
        changes_before = self._changes_seen.get(story_id, 0)
        story = await self._stores.stories.get(account_id, story_id)
        if story is None:
            raise NotFound(f"no story {story_id}")
        documents = await self._stores.interactions.find(story.id, story.structure.contexts)
        model = StoryModel.build(
            story.id,
            story.settings,
            story.structure,
            [to_api(d) for d in documents.values()],
            await self._entities(account_id),
        )
        if self._changes_seen.get(story_id, 0) != changes_before:
            return None
        return _Entry(model, account_id)

    async def _refresh(self, entry: _Entry) -> None:
        async with entry.lock:
            model = entry.model
            if entry.stale_story:
                entry.stale_story = False
                story = await self._stores.stories.get(entry.account_id, model.id)
                if story is None:
                    self._entries.pop(model.id, None)
                    raise NotFound(f"no story {model.id}")
                model.restructure(story.structure)
                model.settings = Settings(**story.settings)
                for gone in set(model.interactions) - set(story.structure.contexts):
                    model.drop(gone)
            if entry.stale_interactions:
                wanted = {i for i in entry.stale_interactions if i in model.structure}
                entry.stale_interactions = set()
                for document in (await self._stores.interactions.find(model.id, wanted)).values():
                    model.put(to_api(document))
            if entry.stale_entities:
                entry.stale_entities = False
                model.use_entities(await self._entities(entry.account_id))

    async def _entities(self, account_id: str) -> dict[str, list[dict[str, object]]]:
        return {d["name"]: d["entries"] for d in await self._stores.entities.list(account_id)}
