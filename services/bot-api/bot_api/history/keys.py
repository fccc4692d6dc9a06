"""The history's application keys: the turns, their recorder and the use cases."""

from aiohttp import web

from bot_api.history.recorder import TurnRecorder
from bot_api.history.repository import TurnStore
from bot_api.history.service import HistoryService

TURN_STORE = web.AppKey[TurnStore]("turn_store")
RECORDER = web.AppKey("recorder", TurnRecorder)
HISTORY = web.AppKey("history", HistoryService)
