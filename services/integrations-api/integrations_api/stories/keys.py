"""The stories' application key: the directory both features ask a story's name."""

from aiohttp import web

from integrations_api.stories.directory import StoryDirectory

STORY_DIRECTORY = web.AppKey[StoryDirectory]("story_directory")
