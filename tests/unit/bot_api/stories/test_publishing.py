"""Publishing a version (`settings.published`): a version of the story only, asked of the
`PublishCheck` first unless forced; unpublishing and other edits keep it as it is."""

import pytest

from bot_api.changes import ChangeFeed
from bot_api.quotas import Quotas
from bot_api.stories.service import StoryService
from bot_api.versions.repository import new_version
from shared.audit import DEVELOPER_TOKEN, Actor
from shared.errors import Conflict, NotFound
from support.memory import Database
from support.story_service import story_service

BY = Actor(DEVELOPER_TOKEN, "developer", "Developer token")

ACCOUNT = "account-1"


class FailingTests:
    """The seam's other side as the conversation tests will fill it: here, a fixed count."""

    def __init__(self, failing: int) -> None:
        self.failing = failing
        self.asked: list[tuple[str, str, str]] = []

    async def failing_tests(self, account_id: str, story_id: str, version_id: str) -> int:
        self.asked.append((account_id, story_id, version_id))
        return self.failing


async def story_and_version(database: Database, stories: StoryService) -> tuple[str, str]:
    story_id = await stories.create(account_id=ACCOUNT, name="Bot", description="")
    version = await database.versions.add(new_version(ACCOUNT, story_id, "", {}, (), BY))
    return story_id, version.id


def service(
    database: Database, feed: ChangeFeed, quotas: Quotas, failing: int
) -> tuple[StoryService, FailingTests]:
    check = FailingTests(failing)
    return story_service(database, feed, quotas, publish_check=check), check


async def publish(
    stories: StoryService, story_id: str, version_id: str | None, force: bool = False
) -> None:
    await stories.update(
        account_id=ACCOUNT,
        story_id=story_id,
        name="Bot",
        description="",
        settings={"published": version_id},
        force=force,
        by=BY,
    )


async def test_a_version_whose_tests_fail_is_published_only_with_force(
    database: Database, feed: ChangeFeed, quotas: Quotas
) -> None:
    stories, check = service(database, feed, quotas, failing=2)
    story_id, version_id = await story_and_version(database, stories)

    with pytest.raises(Conflict, match="2 of the story's tests fail"):
        await publish(stories, story_id, version_id)
    assert database.stories.records[story_id].published is None
    await publish(stories, story_id, version_id, force=True)

    assert database.stories.records[story_id].published == version_id
    assert check.asked == [(ACCOUNT, story_id, version_id)]


async def test_a_version_whose_tests_pass_is_published_and_kept_by_other_edits(
    database: Database, feed: ChangeFeed, quotas: Quotas
) -> None:
    stories, _ = service(database, feed, quotas, failing=0)
    story_id, version_id = await story_and_version(database, stories)

    await publish(stories, story_id, version_id)
    await stories.update(
        account_id=ACCOUNT,
        story_id=story_id,
        name="Renamed",
        description="",
        settings={"lifespan": 3},
        by=BY,
    )

    assert database.stories.records[story_id].published == version_id
    await publish(stories, story_id, None)
    assert database.stories.records[story_id].published is None


async def test_only_a_version_of_the_story_is_published(
    database: Database, feed: ChangeFeed, quotas: Quotas
) -> None:
    stories, check = service(database, feed, quotas, failing=0)
    story_id, _ = await story_and_version(database, stories)
    _, other_version = await story_and_version(database, stories)

    with pytest.raises(NotFound):
        await publish(stories, story_id, other_version)
    assert database.stories.records[story_id].published is None
    assert check.asked == []
