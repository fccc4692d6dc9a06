"""The handoffs' setup step."""

from collections.abc import AsyncIterator
from datetime import timedelta

from aiohttp import web

from bot_api.handoffs.keys import HANDOFFS
from bot_api.handoffs.service import HandoffService
from bot_api.history.keys import RECORDER
from bot_api.keys import CHANGES, CONFIG
from bot_api.query.keys import SESSION_STORE
from bot_api.stories.keys import STORY_STORE


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The person's side of a handoff, which records in the history too."""
    config = app[CONFIG]
    app[HANDOFFS] = HandoffService(
        stories=app[STORY_STORE],
        sessions=app[SESSION_STORE],
        changes=app[CHANGES],
        recorder=app[RECORDER],
        session_idle=timedelta(seconds=config.session_idle_seconds),
        handoff_idle=timedelta(seconds=config.handoff_idle_seconds),
    )
    yield
