"""VersionsInMemory, the `versions` collection in memory, held to VersionRepository's
contract by test_version_repository.py beside it.
"""

from dataclasses import replace

from bot_api.versions.repository import StoryVersion, VersionSummary
from shared.audit import Actor
from shared.pages import Page
from support.journal import InMemory, Journal


class VersionsInMemory(InMemory):
    """Numbers the story's versions as the unique index does: one past its highest."""

    def __init__(self, database: Journal) -> None:
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

    async def mark_published(
        self, account_id: str, story_id: str, version_id: str, by: Actor
    ) -> None:
        version = self.versions.get(version_id)
        if version is not None and (version.account_id, version.story_id) == (
            account_id,
            story_id,
        ):
            self.versions[version_id] = replace(version, published_by=by)

    async def delete(self, account_id: str, story_id: str, version_id: str) -> bool:
        if await self.get(account_id, story_id, version_id) is None:
            return False
        del self.versions[version_id]
        return True

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        for version in self._of(account_id, story_id):
            del self.versions[version.id]
