"""Transfer's application keys."""

from aiohttp import web

from bot_api.transfer.service import StoryTransfer
from shared.fair_work import FairWork

TRANSFER = web.AppKey("transfer", StoryTransfer)
TRANSFER_WORK = web.AppKey("transfer_work", FairWork)
"""The threads that read uploads (translating, checking), write exports and version
documents, off the event loop, shared fairly between accounts (shared/fair_work.py)."""
