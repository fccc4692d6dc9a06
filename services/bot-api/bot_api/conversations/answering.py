"""One /query: the compiled story, the session read, the engine's turn, the webhook if
the matched interaction has one, the session saved."""

import asyncio
import random
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot_api.conversations.cache import StoryCache
from bot_api.deliveries import Deliveries
from bot_api.engine.conversation import SessionState, Turn, respond
from bot_api.storage.sessions import SessionRepository
from shared.errors import Conflict

MAX_SAVE_ATTEMPTS = 100


async def answer(
    cache: StoryCache,
    sessions: SessionRepository,
    deliveries: Deliveries,
    account_id: str,
    story_id: str | None,
    session_id: str,
    turn: Turn,
    idle_timeout: timedelta,
) -> dict[str, Any]:
    """The query result; on a concurrent save of the same session, the turn is taken
    again from what that save left (optimistic concurrency)."""
    story = await cache.story(account_id, story_id)
    answers: dict[str, dict[str, Any] | None] = {}
    for attempt in range(MAX_SAVE_ATTEMPTS):
        stored = await sessions.load(story.id, session_id)
        state = SessionState() if stored.state is None else SessionState.from_document(stored.state)
        new_state, result = respond(story, state, turn)
        result = await deliveries.deliver(story, account_id, session_id, result, answers)
        new_state = replace(new_state, parameters=result["parameters"])
        saved = await sessions.save(
            story.id, session_id, stored.version, new_state.to_document(), idle_timeout
        )
        if saved:
            return result
        await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
    raise Conflict("the session is being changed by too many messages at once; try again")
