"""The handoffs' setup step, and the end of the desk's streams at shutdown."""

from collections.abc import AsyncIterator
from datetime import timedelta

from aiohttp import web

from bot_api.changes import Handler
from bot_api.handoffs.keys import DESK_STREAMS, HANDOFFS
from bot_api.handoffs.live import DeskStreams
from bot_api.handoffs.service import HandoffService
from bot_api.history.keys import RECORDER, TURN_STORE
from bot_api.keys import CHANGES, CONFIG
from bot_api.query.keys import SESSION_STORE
from bot_api.stories.keys import STORY_STORE


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The person's side of a handoff, which records in the history too, and the desk's
    live streams, which hear the lines of this process's turns (the change feed)."""
    config = app[CONFIG]
    streams = DeskStreams(
        per_account=config.desk_streams_per_account, per_client=config.desk_streams_per_client
    )
    app[CHANGES].handle(Handler.DESK, streams)
    app[DESK_STREAMS] = streams
    app[HANDOFFS] = HandoffService(
        stories=app[STORY_STORE],
        sessions=app[SESSION_STORE],
        turns=app[TURN_STORE],
        changes=app[CHANGES],
        recorder=app[RECORDER],
        streams=streams,
        session_idle=timedelta(seconds=config.session_idle_seconds),
        handoff_idle=timedelta(seconds=config.handoff_idle_seconds),
    )
    yield


async def end_streams(app: web.Application) -> None:
    """on_shutdown: the desk's open streams end, so the server does not wait for them
    (it waits for the requests still running before the cleanup steps)."""
    if DESK_STREAMS in app:
        await app[DESK_STREAMS].close()
