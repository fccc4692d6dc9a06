"""Stories' application keys: the story repository every feature reads, and the service."""

from aiohttp import web

from bot_api.stories.repository import StoryStore
from bot_api.stories.service import StoryService

STORY_STORE = web.AppKey[StoryStore]("story_store")
STORIES = web.AppKey("stories", StoryService)
