"""StoriesInMemory, bot-api's `stories` collection in memory, held to StoryRepository's
contract by test_story_repository.py beside it: an update is conditional on the story's
revision and counts phrases only for a story that has the counter.
"""

from dataclasses import replace
from typing import Any

from bson import ObjectId

from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.stories.repository import StoryFields, StoryRecord
from shared.pages import Page
from support.journal import InMemory, Journal


def _plus(counter: int | None, added: int) -> int | None:
    """A phrase counter after `added`: a story without one stays without."""
    return None if counter is None else counter + added


class StoriesInMemory(InMemory):
    def __init__(self, database: Journal) -> None:
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

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[dict[str, Any]]:
        await self._database.record("stories.list", account_id)
        stories = [
            {"_id": ObjectId(r.id), "name": r.name, "description": r.description}
            for r in self.records.values()
            if r.account_id == account_id and (only is None or r.id in only)
        ]
        return page.of(stories)

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int:
        await self._database.record("stories.count", account_id)
        return sum(
            1
            for r in self.records.values()
            if r.account_id == account_id and (only is None or r.id in only)
        )

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
