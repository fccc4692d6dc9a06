"""Delivering a matched interaction's webhook during a /query turn (docs/webhooks.md),
and a user's message to the handoff connection while a person has the conversation.

The webhook is a URL or a connection's id; a connection (named, or whose url equals the
URL) lends its credentials, and the outcome of a call through it is reported so that
integrations-api sets or clears the connection's `error`.
"""

import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from bot_api.connections.repository import Connection
from bot_api.domain.interactions import Interaction
from bot_api.engine.turn import HandedOver, Outcome, Turn
from bot_api.metrics import WEBHOOK_DELIVERIES, WEBHOOK_LATENCY
from bot_api.query.repeats import TurnKey
from bot_api.query.webhooks.answers import WebhookAnswer, read_answer
from bot_api.query.webhooks.failures import DeliveryFailed
from bot_api.query.webhooks.payload import handoff_body, request_body
from shared.events import DeliveryResult
from shared.ids import is_object_id

log = logging.getLogger(__name__)

Read = TypeVar("Read")
Report = Callable[[DeliveryResult], Awaitable[None]]
Answers = dict[str, WebhookAnswer | None]
"""Each interaction's answer within one turn, so a retried session save does not call
the backend again."""


class ConnectionLookup(Protocol):
    async def for_webhook(
        self, account_id: str, story_id: str, webhook: str
    ) -> Connection | None: ...


class Caller(Protocol):
    """Makes the HTTP call (`WebhookCaller`): the answer's body, or DeliveryFailed."""

    async def call(
        self, url: str, body: dict[str, Any], connection: Connection | None = None
    ) -> bytes: ...


class Deliveries:
    def __init__(self, *, caller: Caller, connections: ConnectionLookup, report: Report) -> None:
        self._caller = caller
        self._connections = connections
        self._report = report

    async def deliver(
        self,
        *,
        account_id: str,
        session_id: str,
        turn: Turn,
        outcome: Outcome,
        answers: Answers,
        key: TurnKey | None = None,
    ) -> Outcome:
        """The outcome with the webhook's answer; a failed delivery leaves it as it was (an
        interaction saying nothing of its own then says the story's fallback text).
        `key`: the turn's, when it may be asked again (its calls keep their message id)."""
        interaction = outcome.interaction
        if interaction is None or outcome.incomplete or not interaction.webhook:
            return outcome
        if interaction.id not in answers:
            message_id = str(uuid.uuid4()) if key is None else key.message_id(interaction.id)
            answers[interaction.id] = await self._call(
                account_id, session_id, interaction, turn, outcome, message_id
            )
        answer = answers[interaction.id]
        if answer is None:
            return outcome.spoken()
        return outcome.with_webhook_answer(answer.responses, answer.attributes, random.choice)

    async def _call(
        self,
        account_id: str,
        session_id: str,
        interaction: Interaction,
        turn: Turn,
        outcome: Outcome,
        message_id: str,
    ) -> WebhookAnswer | None:
        webhook = interaction.webhook
        connection = await self._connections.for_webhook(account_id, outcome.story_id, webhook)
        if connection is None and is_object_id(webhook):
            log.warning(
                "interaction %s names no connection of its story: %s", interaction.id, webhook
            )
            return None
        url = webhook if connection is None else connection.url
        body = request_body(session_id, interaction, turn, outcome, connection, message_id)
        what = f"webhook of interaction {interaction.id}"
        return await self._post(account_id, url, body, connection, what, read_answer)

    async def hand_over(
        self,
        *,
        account_id: str,
        session_id: str,
        turn: Turn,
        outcome: Outcome,
        handoff: HandedOver,
    ) -> None:
        """Deliver the user's message to the handoff connection (the answer is not read:
        the person answers through the handoff API)."""
        connection = await self._connections.for_webhook(
            account_id, outcome.story_id, handoff.connection
        )
        if connection is None:
            log.warning("a handoff names no connection of its story: %s", handoff.connection)
            return
        body = handoff_body(session_id, turn, outcome)
        await self._post(account_id, connection.url, body, connection, "handoff", bytes)

    async def _post(
        self,
        account_id: str,
        url: str,
        body: dict[str, Any],
        connection: Connection | None,
        what: str,
        read: Callable[[bytes], Read],
    ) -> Read | None:
        """The answer as `read` reads it, or None when the call failed (logged, counted and,
        through a connection, reported)."""
        error: str | None = None
        answer: Read | None = None
        started = time.perf_counter()
        try:
            answer = read(await self._caller.call(url, body, connection))
        except DeliveryFailed as failure:
            error = str(failure)
            log.warning("%s failed: %s", what, error)
        WEBHOOK_LATENCY.observe(time.perf_counter() - started)
        WEBHOOK_DELIVERIES.labels("ok" if error is None else "failed").inc()
        if connection is not None:
            at_ms = int(time.time() * 1000)
            await self._report(DeliveryResult(account_id, connection.id, error, at_ms))
        return answer
