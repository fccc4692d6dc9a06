"""What a story's things (webhook connections, channels) do about their story: a new one
follows a story of its account, and each follows the story's changes."""

from typing import Protocol

from integrations_api.stories.directory import StoryDirectory, StoryNotFound
from shared.errors import ValidationFailed
from shared.events import StoryChanged


class StoryFollowers(Protocol):
    """A collection of a story's things, each showing the story's name."""

    async def used_by_story(self, account_id: str, story_id: str) -> bool: ...

    async def rename_story(self, account_id: str, story_id: str, name: str) -> None: ...

    async def delete_for_story(self, account_id: str, story_id: str) -> None: ...


async def followed_story_name(stories: StoryDirectory, account_id: str, story_id: str) -> str:
    """The name of the story a new connection or channel is to follow; a 400 naming
    `storyId` when the account has no such story."""
    try:
        return await stories.name(account_id, story_id)
    except StoryNotFound:
        raise ValidationFailed.at(("storyId",), f"no story {story_id} in this account") from None


async def follow_story(
    followers: StoryFollowers, stories: StoryDirectory, event: StoryChanged
) -> None:
    """A story's things follow it: deleted with it; renamed with it, its name asked from
    bot-api (the source of truth), and only when it has any."""
    if event.deleted:
        await followers.delete_for_story(event.account_id, event.story_id)
        return
    if not await followers.used_by_story(event.account_id, event.story_id):
        return
    try:
        name = await stories.name(event.account_id, event.story_id)
    except StoryNotFound:
        return  # deleted since: its own event removes the story's things
    await followers.rename_story(event.account_id, event.story_id, name)
