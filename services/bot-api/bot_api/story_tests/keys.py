"""The conversation tests' application key."""

from aiohttp import web

from bot_api.story_tests.repository import ConversationTestStore
from bot_api.story_tests.service import ConversationTestService

CONVERSATION_TESTS = web.AppKey("conversation_tests", ConversationTestService)
"""A story's tests, run on demand and after each edit (docs/tests.md)."""
TEST_STORE = web.AppKey[ConversationTestStore]("test_store")
"""The tests' repository, which an import writes the story's tests to."""
