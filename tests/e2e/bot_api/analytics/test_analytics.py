"""GET /stories/{story}/analytics over counters fed through the app's own listener (as
the history recorder feeds it): totals, the series by hour and by day, answers per
interaction with today's names, the interactions that never answered, bad ranges, other
accounts' stories, and a deleted story's counters."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot_api.analytics.keys import ANALYTICS
from bot_api.domain.history import AnsweredBy, TurnRecord
from bot_api.history.keys import RECORDER
from support.api import Api, Tenant

NOON = datetime(2026, 3, 1, 12, tzinfo=UTC)
RANGE = "from=2026-03-01T00:00:00Z&to=2026-03-03T00:00:00Z"


async def seed(bot_api: TestClient, api: Api, story_id: str) -> dict[str, str]:
    """Three conversations: s1 says hi twice (10 and 30 ms), s2 falls back then says hi
    (a webhook failing on the fallback), s3 says hi the next day; the interaction ids by
    name."""
    story = await api.story(story_id)
    ids = {i["name"]: i["id"] for i in story["interactions"].values()}
    ids["hello"] = await api.create_interaction(story_id, "hello", userSays=["hi"])
    hello = AnsweredBy(ids["hello"], "hello", "standard")
    fallback = AnsweredBy(ids["Fallback"], "Fallback", "fallback")

    def turn(session: str, minutes: int, answered: AnsweredBy, **more: Any) -> TurnRecord:
        outcome = "fallback" if answered is fallback else "matched"
        at = NOON + timedelta(minutes=minutes)
        return TurnRecord("a", story_id, session, at, outcome, interaction=answered, **more)

    await bot_api.app[ANALYTICS].turns_written(
        [
            turn("s1", 0, hello, latency_ms=10.0),
            turn("s1", 1, hello, latency_ms=30.0),
            turn("s2", 70, fallback, latency_ms=30.0, webhook="timeout"),
            turn("s2", 71, hello, latency_ms=30.0),
            turn("s3", 24 * 60, hello, latency_ms=30.0),
        ]
    )
    return ids


async def test_totals_series_and_interactions_of_a_range(
    bot_api: TestClient, api: Api, story_id: str
) -> None:
    ids = await seed(bot_api, api, story_id)
    report = await api.ok("GET", f"/stories/{story_id}/analytics?{RANGE}&interval=hour")
    totals = report["totals"]
    assert {
        k: totals[k] for k in ("conversations", "messages", "fallbacks", "webhookFailures")
    } == {
        "conversations": 3,
        "messages": 5,
        "fallbacks": 1,
        "webhookFailures": 1,
    }
    assert totals["containment"] == pytest.approx(2 / 3)
    assert totals["messagesPerConversation"] == pytest.approx(5 / 3)
    assert totals["fallbackRate"] == pytest.approx(1 / 5)
    assert totals["latency"]["p50"] == pytest.approx(30, rel=0.025)
    assert totals["latency"]["p95"] == pytest.approx(30, rel=0.025)
    assert (report["from"], report["to"]) == (
        "2026-03-01T00:00:00.000Z",
        "2026-03-03T00:00:00.000Z",
    )
    series = report["series"]
    assert len(series) == 48
    assert [
        (s["at"][11:13], s["messages"], s["conversations"]) for s in series if s["messages"]
    ] == [
        ("12", 2, 1),
        ("13", 2, 1),
        ("12", 1, 1),
    ]
    assert series[0]["latency"] == {"p50": None, "p95": None}
    assert series[0]["containment"] is None
    assert report["interactions"] == [
        {"id": ids["hello"], "name": "hello", "count": 4},
        {"id": ids["Fallback"], "name": "Fallback", "count": 1},
    ]
    assert report["unanswered"] == [{"id": ids["Welcome"], "name": "Welcome"}]
    before = await api.ok("GET", f"/stories/{story_id}/analytics?to=2026-02-01T00:00:00Z")
    assert report["firstRecorded"] == before["firstRecorded"] == "2026-03-01T12:00:00.000Z"


async def test_by_day_and_with_the_names_of_now(
    bot_api: TestClient, api: Api, story_id: str
) -> None:
    ids = await seed(bot_api, api, story_id)
    path = f"/stories/{story_id}/interactions/{ids['hello']}"
    await api.ok("PUT", path, {**await api.ok("GET", path), "name": "greeting"})
    report = await api.ok(
        "GET", f"/stories/{story_id}/analytics?from=2026-03-01T05:00:00&to=2026-03-02T01:00:00Z"
    )
    assert report["interval"] == "day"
    assert (report["from"], report["to"]) == (
        "2026-03-01T00:00:00.000Z",
        "2026-03-03T00:00:00.000Z",
    )
    assert [(s["at"], s["messages"], s["conversations"]) for s in report["series"]] == [
        ("2026-03-01T00:00:00.000Z", 4, 2),
        ("2026-03-02T00:00:00.000Z", 1, 1),
    ]
    assert report["interactions"][0] == {"id": ids["hello"], "name": "greeting", "count": 4}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("interval=week", "interval"),
        ("from=yesterday", "from"),
        ("to=2026-03-01T00:00:00Z&from=2026-03-01T00:00:00Z", "to"),
        ("from=2025-01-01T00:00:00Z&to=2026-01-03T00:00:00Z", "to"),
        ("from=9999-12-30T00:00:00Z&to=9999-12-31T23:59:59Z", "from"),
        ("from=1969-12-31T00:00:00Z&to=1970-01-02T00:00:00Z", "from"),
    ],
)
async def test_a_bad_range_or_interval_is_400(
    api: Api, story_id: str, query: str, field: str
) -> None:
    reply = await api.get(f"/stories/{story_id}/analytics?{query}")
    assert reply.status == 400, reply.body
    assert field in reply.details


async def test_another_account_s_story_and_a_deleted_story_are_404_and_lose_their_counters(
    bot_api: TestClient, api: Api, story_id: str, bob: Tenant
) -> None:
    await seed(bot_api, api, story_id)
    assert (await bob.developer.get(f"/stories/{story_id}/analytics")).status == 404
    await api.ok("DELETE", f"/stories/{story_id}")
    assert (await api.get(f"/stories/{story_id}/analytics")).status == 404
    store = bot_api.app[ANALYTICS].store
    assert await store.hours_of(story_id, 0, 10**7) == {}


async def test_query_turns_reach_the_report_through_the_history_recorder(
    bot_api: TestClient, alice: Tenant
) -> None:
    api = alice.developer
    story_id = await api.create_story("Pizza")
    order = await api.create_interaction(story_id, "Order", userSays=["I want a pizza"])
    for session, message in (("s1", "I want a pizza"), ("s1", "the moon"), ("s2", "hi")):
        body = {"storyId": story_id, "sessionId": session, "query": message}
        await alice.public.ok("POST", "/query", body)
    tried = {"storyId": story_id, "sessionId": "tried", "query": "the moon"}
    await api.ok("POST", "/query", {**tried, "parameters": {"default_source": "console"}})
    await bot_api.app[RECORDER].idle()
    now = datetime.now(UTC)
    since = (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    until = (now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    report = await api.ok("GET", f"/stories/{story_id}/analytics?from={since}&to={until}")
    totals = report["totals"]
    assert (totals["conversations"], totals["messages"], totals["fallbacks"]) == (2, 3, 1)
    assert totals["containment"] == pytest.approx(1 / 2)
    counts = {i["name"]: i["count"] for i in report["interactions"]}
    assert counts == {"Order": 1, "Fallback": 1, "Welcome": 1}
    assert order in {i["id"] for i in report["interactions"]}
    widget = {"storyId": story_id, "sessionId": "w1", "parameters": {"default_source": "widget"}}
    await alice.public.ok("POST", "/query", {**widget, "query": "I want a pizza"})
    await bot_api.app[RECORDER].idle()
    base = f"/stories/{story_id}/analytics?from={since}&to={until}"
    only = await api.ok("GET", f"{base}&source=widget")
    assert (only["totals"]["conversations"], only["totals"]["messages"]) == (1, 1)
    assert [(i["name"], i["count"]) for i in only["interactions"]] == [("Order", 1)]
    assert (await api.ok("GET", f"{base}&channel=c-1"))["totals"]["messages"] == 0
    assert (await api.ok("GET", base))["totals"]["messages"] == 4
