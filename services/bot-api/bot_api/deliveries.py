"""Delivering a matched interaction's webhook during a /query turn (docs/webhooks.md).

The webhook is a URL or a connection's id; a connection (named, or whose url equals the
URL) lends its credentials, and the outcome of a call through it is reported so that
integrations-api sets or clears the connection's `error`.
"""

import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from bot_api.engine.story import StoryModel
from bot_api.engine.webhooks import apply_answer, request_body
from bot_api.storage.connections import ConnectionViewRepository
from bot_api.webhooks import DeliveryFailed, WebhookCaller, within_budget
from shared.events import DeliveryResult
from shared.ids import is_object_id

log = logging.getLogger(__name__)

Report = Callable[[DeliveryResult], Awaitable[None]]


class Deliveries:
    def __init__(
        self, caller: WebhookCaller, connections: ConnectionViewRepository, report: Report
    ) -> None:
        self._caller = caller
        self._connections = connections
        self._report = report

    async def deliver(
        self,
        story: StoryModel,
        account_id: str,
        session_id: str,
        result: dict[str, Any],
        answers: dict[str, dict[str, Any] | None],
    ) -> dict[str, Any]:
        """The result with the webhook's answer. `answers` keeps each interaction's answer
        for the turn, so a retried session save does not call the backend again; a
        failed delivery leaves the result as it was."""
        matched = result["interaction"]
        if matched is None or result["incomplete"]:
            return result
        interaction = story.interactions[matched["id"]]
        webhook = interaction["webhook"]
        if not webhook:
            return result
        if matched["id"] not in answers:
            answers[matched["id"]] = await self._call(
                story, account_id, session_id, matched["id"], interaction, webhook, result
            )
        answered = answers[matched["id"]]
        return result if answered is None else apply_answer(result, answered, random.choice)

    async def _call(
        self,
        story: StoryModel,
        account_id: str,
        session_id: str,
        interaction_id: str,
        interaction: Mapping[str, Any],
        webhook: str,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        connection = await self._connections.for_webhook(account_id, story.id, webhook)
        if connection is None and is_object_id(webhook):
            log.warning(
                "interaction %s names no connection of its story: %s", interaction_id, webhook
            )
            return None
        url = webhook if connection is None else connection["url"]
        body = request_body(session_id, interaction_id, interaction, result)
        if connection is not None:
            body["node"]["webhookId"] = connection["_id"]
            body["node"]["webhookName"] = connection["name"]
        error: str | None = None
        answer: dict[str, Any] | None = None
        try:
            answer = await within_budget(self._caller, url, body, connection)
        except DeliveryFailed as failure:
            error = str(failure)
            log.warning("webhook of interaction %s failed: %s", interaction_id, error)
        if connection is not None:
            at_ms = int(time.time() * 1000)
            await self._report(DeliveryResult(account_id, connection["_id"], error, at_ms))
        return answer
