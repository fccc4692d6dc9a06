"""/query's application keys: the sessions and the conversation service."""

from aiohttp import web

from bot_api.query.repository import SessionStore
from bot_api.query.service import ConversationService

SESSION_STORE = web.AppKey[SessionStore]("session_store")
CONVERSATIONS = web.AppKey("conversations", ConversationService)
