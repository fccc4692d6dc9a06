"""The change feed: each change is heard by the handlers `HEARD_BY` lists for its kind, in
that order, the publisher first; a handler that raises stops none of the others."""

import logging
from typing import get_args

import pytest
from prometheus_client import REGISTRY

from bot_api.changes import (
    HEARD_BY,
    Change,
    ChangeFeed,
    EntitiesEdited,
    Handler,
    HandoffMessageSent,
    KnowledgeEdited,
    StoryCreated,
    StoryDeleted,
    StoryEdited,
)

EVERY_KIND: list[Change] = [
    StoryCreated("account-1", "story-1"),
    StoryEdited("account-1", "story-1", frozenset({"greet"})),
    EntitiesEdited("account-1"),
    HandoffMessageSent("account-1", "story-1", "session-1", "hello"),
    StoryDeleted("account-1", "story-1"),
    KnowledgeEdited("account-1", "story-1"),
]


class Heard(list[tuple[Handler, Change]]):
    def handler(self, role: Handler, failure: Exception | None = None) -> "Recording":
        return Recording(self, role, failure)


class Recording:
    """Writes down what it heard, then raises `failure` if given (a handler whose
    database went away)."""

    def __init__(self, heard: Heard, role: Handler, failure: Exception | None) -> None:
        self._heard, self._role, self._failure = heard, role, failure

    async def changed(self, change: Change) -> None:
        self._heard.append((self._role, change))
        if self._failure is not None:
            raise self._failure


def every_role(heard: Heard, failing: dict[Handler, Exception] | None = None) -> ChangeFeed:
    feed = ChangeFeed()
    for role in Handler:
        feed.handle(role, heard.handler(role, (failing or {}).get(role)))
    return feed


def failures(change: str, handler: Handler) -> float:
    labels = {"change": change, "handler": handler.value}
    return REGISTRY.get_sample_value("parley_change_handler_failures_total", labels) or 0.0


def test_the_table_has_a_row_for_every_kind_of_change_the_publisher_first() -> None:
    assert set(HEARD_BY) == set(get_args(Change))
    for kind, roles in HEARD_BY.items():
        assert roles[0] is Handler.PUBLISHER, kind
        assert len(set(roles)) == len(roles), kind


def test_every_handler_hears_some_change() -> None:
    assert {role for roles in HEARD_BY.values() for role in roles} == set(Handler)


async def test_each_change_is_heard_by_its_row_s_handlers_once_in_order() -> None:
    heard = Heard()
    feed = every_role(heard)

    for change in EVERY_KIND:
        await feed.announce(change)

    assert heard == [(role, c) for c in EVERY_KIND for role in HEARD_BY[type(c)]]


async def test_a_failing_handler_is_logged_and_counted_and_the_later_ones_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    heard = Heard()
    feed = every_role(heard, {Handler.CONVERSATION_TESTS: ConnectionError("database away")})
    before = failures("StoryDeleted", Handler.CONVERSATION_TESTS)
    deleted = StoryDeleted("account-1", "story-1")

    with caplog.at_level(logging.ERROR, logger="bot_api.changes"):
        await feed.announce(deleted)

    assert heard == [(role, deleted) for role in HEARD_BY[StoryDeleted]]
    assert heard[-1] == (Handler.KNOWLEDGE, deleted)  # after the failing one
    assert failures("StoryDeleted", Handler.CONVERSATION_TESTS) == before + 1
    [record] = caplog.records
    assert "conversation tests" in record.getMessage() and "StoryDeleted" in record.getMessage()
    assert record.exc_info is not None and isinstance(record.exc_info[1], ConnectionError)


async def test_a_failing_publisher_fails_the_announce_after_every_other_handler_ran() -> None:
    heard = Heard()
    away = ConnectionError("outbox: database away")
    feed = every_role(heard, {Handler.PUBLISHER: away})
    before = failures("StoryEdited", Handler.PUBLISHER)
    edited = StoryEdited("account-1", "story-1")

    with pytest.raises(ConnectionError) as raised:
        await feed.announce(edited)

    assert raised.value is away
    assert heard == [(role, edited) for role in HEARD_BY[StoryEdited]]
    assert failures("StoryEdited", Handler.PUBLISHER) == before + 1


async def test_a_role_without_a_handler_is_skipped() -> None:
    heard = Heard()
    feed = ChangeFeed()
    feed.handle(Handler.VECTOR_SWEEPER, heard.handler(Handler.VECTOR_SWEEPER))

    await feed.announce(EntitiesEdited("account-1"))
    await feed.announce(HandoffMessageSent("account-1", "story-1", "session-1", "hi"))

    assert heard == [(Handler.VECTOR_SWEEPER, EntitiesEdited("account-1"))]


async def test_a_role_has_one_handler() -> None:
    feed = ChangeFeed()
    feed.handle(Handler.INBOX, Heard().handler(Handler.INBOX))
    with pytest.raises(ValueError, match="inbox"):
        feed.handle(Handler.INBOX, Heard().handler(Handler.INBOX))
