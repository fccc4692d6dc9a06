"""One /query: the compiled story, the session read, the engine's turn, the webhook if
the matched interaction has one, the session saved."""

import asyncio
import logging
import random
import re
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot_api.conversations.cache import StoryCache
from bot_api.engine.conversation import SessionState, Turn, respond
from bot_api.engine.story import StoryModel
from bot_api.engine.webhooks import apply_answer, request_body
from bot_api.storage.sessions import SessionRepository
from bot_api.webhooks import DeliveryFailed, WebhookCaller, within_budget
from shared.errors import Conflict

log = logging.getLogger(__name__)
MAX_SAVE_ATTEMPTS = 100
CONNECTION_ID = re.compile(r"^[0-9a-f]{24}$")


async def answer(
    cache: StoryCache,
    sessions: SessionRepository,
    webhooks: WebhookCaller,
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
        result = await _with_webhook(story, webhooks, session_id, result, answers)
        new_state = replace(new_state, parameters=result["parameters"])
        saved = await sessions.save(
            story.id, session_id, stored.version, new_state.to_document(), idle_timeout
        )
        if saved:
            return result
        await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
    raise Conflict("the session is being changed by too many messages at once; try again")


async def _with_webhook(
    story: StoryModel,
    webhooks: WebhookCaller,
    session_id: str,
    result: dict[str, Any],
    answers: dict[str, dict[str, Any] | None],
) -> dict[str, Any]:
    """The result with the webhook's answer, called at most once per interaction per
    turn (a retried save reuses it); a failed delivery leaves the result as it was."""
    matched = result["interaction"]
    if matched is None or result["incomplete"]:
        return result
    interaction = story.interactions[matched["id"]]
    url = interaction["webhook"]
    if not url or CONNECTION_ID.match(url):
        return result
    if matched["id"] not in answers:
        body = request_body(session_id, matched["id"], interaction, result)
        try:
            answers[matched["id"]] = await within_budget(webhooks, url, body)
        except DeliveryFailed as failure:
            log.warning("webhook %s of interaction %s failed: %s", url, matched["id"], failure)
            answers[matched["id"]] = None
    answered = answers[matched["id"]]
    return result if answered is None else apply_answer(result, answered, random.choice)
