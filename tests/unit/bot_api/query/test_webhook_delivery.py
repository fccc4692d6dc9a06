"""Deliveries: when a matched interaction's webhook is called, through which connection,
what its answer adds to the outcome, and what is reported to integrations-api."""

import dataclasses
import json
from typing import Any

import pytest

from bot_api.connections.repository import Connection
from bot_api.domain.responses import Text
from bot_api.engine.turn import Outcome, Turn
from bot_api.query.webhooks.delivery import Answers, Deliveries
from bot_api.query.webhooks.failures import DeliveryFailed
from shared.events import ConnectionChanged, DeliveryResult
from support.memory import Database
from support.stories import interaction

ACCOUNT = "account-1"
STORY = "story-1"
CONNECTION_ID = "0123456789abcdef01234567"
BACKEND_URL = "https://backend.example/hook"


class Backend:
    """Stands in for the HTTP call: answers `answer`, or raises it if it is a failure."""

    def __init__(self, answer: dict[str, Any] | DeliveryFailed) -> None:
        self.answer = answer
        self.calls: list[tuple[str, Connection | None]] = []

    async def call(
        self, url: str, body: dict[str, Any], connection: Connection | None = None
    ) -> bytes:
        self.calls.append((url, connection))
        if isinstance(self.answer, DeliveryFailed):
            raise self.answer
        return json.dumps(self.answer).encode()


ANSWER = {
    "responses": [{"type": "text", "message": "Your order {{order}} is on its way"}],
    "attributes": {"order": "42"},
}


def outcome(webhook: str = BACKEND_URL, incomplete: bool = False) -> Outcome:
    return Outcome(
        story_id=STORY,
        interaction=interaction("track", "where is my order", webhook=webhook),
        score=1.0,
        threshold=0.5,
        lifespan=2,
        incomplete=incomplete,
        parameters={"size": "large"},
        contexts=(),
        fulfillment=(Text("Let me check.", 0),),
    )


@pytest.fixture
def database() -> Database:
    return Database()


@pytest.fixture
def reports() -> list[DeliveryResult]:
    return []


def deliveries(backend: Backend, database: Database, reports: list[DeliveryResult]) -> Deliveries:
    async def report(result: DeliveryResult) -> None:
        reports.append(result)

    return Deliveries(caller=backend, connections=database.connections, report=report)


async def deliver(service: Deliveries, before: Outcome, answers: Answers | None = None) -> Outcome:
    return await service.deliver(
        account_id=ACCOUNT,
        session_id="session-1",
        turn=Turn(query="where is my order"),
        outcome=before,
        answers={} if answers is None else answers,
    )


async def a_connection(database: Database) -> None:
    await database.connections.apply(
        ConnectionChanged(CONNECTION_ID, ACCOUNT, STORY, "Orders", BACKEND_URL, revision=1)
    )


@pytest.mark.parametrize(
    "before",
    [outcome(webhook=""), outcome(incomplete=True)],
    ids=["no webhook", "incomplete"],
)
async def test_no_call_without_a_webhook_or_for_an_incomplete_outcome(
    before: Outcome, database: Database, reports: list[DeliveryResult]
) -> None:
    backend = Backend(ANSWER)

    after = await deliver(deliveries(backend, database, reports), before)

    assert after is before
    assert backend.calls == []


async def test_a_connection_id_naming_no_connection_calls_and_reports_nothing(
    database: Database, reports: list[DeliveryResult]
) -> None:
    backend = Backend(ANSWER)
    before = outcome(webhook=CONNECTION_ID)

    after = await deliver(deliveries(backend, database, reports), before)

    assert after is before
    assert backend.calls == []
    assert reports == []


async def test_a_plain_url_is_called_without_a_connection_and_reported_to_nobody(
    database: Database, reports: list[DeliveryResult]
) -> None:
    backend = Backend(ANSWER)

    after = await deliver(deliveries(backend, database, reports), outcome())

    assert backend.calls == [(BACKEND_URL, None)]
    assert after.source == "webhook"
    assert reports == []


async def test_a_failure_leaves_the_outcome_and_reports_the_error_for_the_connection(
    database: Database, reports: list[DeliveryResult]
) -> None:
    await a_connection(database)
    backend = Backend(DeliveryFailed("HTTP 500"))
    before = outcome(webhook=CONNECTION_ID)

    after = await deliver(deliveries(backend, database, reports), before)

    assert after is before
    assert [(r.account_id, r.connection_id, r.error) for r in reports] == [
        (ACCOUNT, CONNECTION_ID, "HTTP 500")
    ]


async def test_an_answer_through_a_connection_is_merged_and_reported_as_a_success(
    database: Database, reports: list[DeliveryResult]
) -> None:
    await a_connection(database)
    backend = Backend(ANSWER)

    after = await deliver(deliveries(backend, database, reports), outcome(webhook=CONNECTION_ID))

    [(url, connection)] = backend.calls
    assert url == BACKEND_URL
    assert connection is not None
    assert connection.id == CONNECTION_ID
    assert after.fulfillment == (
        Text("Let me check.", 0),
        Text("Your order 42 is on its way", 1000),
    )
    assert after.parameters == {"size": "large", "order": "42"}
    assert after.source == "webhook"
    assert [(r.connection_id, r.error) for r in reports] == [(CONNECTION_ID, None)]


async def test_a_url_equal_to_a_connections_url_goes_through_that_connection(
    database: Database, reports: list[DeliveryResult]
) -> None:
    await a_connection(database)
    backend = Backend(ANSWER)

    await deliver(deliveries(backend, database, reports), outcome(webhook=BACKEND_URL))

    [(_, connection)] = backend.calls
    assert connection is not None
    assert connection.id == CONNECTION_ID
    assert [r.connection_id for r in reports] == [CONNECTION_ID]


async def test_a_retried_turn_reuses_the_answer_instead_of_calling_again(
    database: Database, reports: list[DeliveryResult]
) -> None:
    backend = Backend(ANSWER)
    service = deliveries(backend, database, reports)
    answers: Answers = {}

    first = await deliver(service, outcome(), answers)
    retried = await deliver(service, outcome(), answers)

    assert len(backend.calls) == 1
    assert retried == first


@pytest.mark.parametrize(
    "backend",
    [Backend(DeliveryFailed("HTTP 500")), Backend({"responses": []})],
    ids=["failed", "answered nothing"],
)
async def test_an_interaction_saying_nothing_says_the_fallback_text_when_its_webhook_does_not(
    backend: Backend, database: Database, reports: list[DeliveryResult]
) -> None:
    """docs/query.md "Silent answers": the engine left the fallback text to the answer."""
    silent = dataclasses.replace(outcome(), fulfillment=(), silence=(Text("Sorry?"),))

    after = await deliver(deliveries(backend, database, reports), silent)

    assert (after.fulfillment, after.silence) == ((Text("Sorry?"),), ())
