"""An import, a version's publish, the conversation-test run after an edit, an inbox
action and a channel's turn work whichever replica takes them, and the run after an
edit happens once, on the replica that took the edit (docs/scaling.md "What holds
across replicas, tested")."""

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from bench.stack import Replicas
from support.api import Api, Tenant
from support.channel_e2e import create_channel
from support.platforms.telegram import TelegramStandIn, message_update
from support.replicas import api_at, metric
from support.waiting import eventually
from tools.embedded import free_port

BOUND_SECONDS = 10.0
"""How long a change may take to show on another replica here: an edit's event, a run
after the 0.5 s debounce, a turn in the history's 2 s batch; all on a shared machine."""
TURNS_AT_MOST = 30
"""Channel messages sent until each replica answered one (NATS picks one of the queue
group at random: 5.5 are needed on average; all three within 30 but 1 time in 60,000)."""
BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HOURS = {"name": "Hours", "userSays": ["when are you open"]}


def says(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "messages": [text]}]


SHOP = {
    "format": "parley.story",
    "version": 1,
    "name": "Shop",
    "interactions": [{"key": "hours", **HOURS, "responses": says("Nine to five.")}],
    "tests": [
        {
            "name": "hours",
            "turns": [{"query": "when are you open", "expect": {"interaction": "Hours"}}],
        }
    ],
}
"""A story with a conversation test, written at once by its import."""


@pytest.fixture(scope="module")
def telegram_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def replica_settings(telegram_port: int) -> dict[str, Any]:
    """integrations-api beside the replicas, calling a Telegram stand-in each test serves."""
    return {
        "semantic_matching": False,
        "integrations": True,
        "telegram_api_url": f"http://127.0.0.1:{telegram_port}",
    }


async def answered(api: Api, story_id: str, query: str, **parameters: str) -> list[str]:
    """The texts `query` is answered with in a new session."""
    body = {"storyId": story_id, "sessionId": uuid.uuid4().hex, "query": query,
            "parameters": parameters}  # fmt: skip
    reply = await api.ok("POST", "/query", body)
    return [i["message"] for i in reply["result"]["fulfillment"] if i["type"] == "text"]


async def answers(api: Api, story_id: str, query: str, texts: list[str], **parameters: str) -> None:
    """Until the replica answers `query` with `texts`."""

    async def as_expected() -> bool:
        return await answered(api, story_id, query, **parameters) == texts

    await eventually(as_expected, BOUND_SECONDS)


async def new_run(api: Api, story_id: str, since: str | None) -> dict[str, Any]:
    """The story's last run after an edit, once one newer than the run at `since` is
    stored (read through `api`'s replica)."""

    async def newer() -> dict[str, Any] | None:
        reply = await api.get(f"/stories/{story_id}/tests/last")
        fresh = reply.status == 200 and reply.body["ranAt"] != since
        return dict(reply.body) if fresh else None

    run: dict[str, Any] = await eventually(newer, BOUND_SECONDS)
    return run


async def runs_after_edits(apis: list[Api]) -> list[float]:
    return [await metric(api, "parley_test_runs_after_edits_total") for api in apis]


async def test_the_run_after_an_edit_happens_once_on_the_replica_that_took_it(
    tenant: list[Tenant],
) -> None:
    apis = [t.developer for t in tenant]
    story_id = (await apis[0].ok("POST", "/stories/import", SHOP))["id"]  # one write, one run
    ran_at = (await new_run(apis[0], story_id, None))["ranAt"]
    listed = await apis[0].ok("GET", f"/stories/{story_id}/interactions")
    hours = next(i["id"] for i in listed if i["name"] == "Hours")
    before = await runs_after_edits(apis)

    # Each replica in turn takes an edit; another reads the run it made. Waiting for each
    # run (0.5 s after its edit) also gives a replica that heard an earlier edit the time
    # to run it, were the runs not only the editing replica's.
    edits = [["pizza delivery prices"], ["when are you open"], ["when are you open", "hours"]]
    verdicts = []
    for n, phrases in enumerate(edits):
        path = f"/stories/{story_id}/interactions/{hours}"
        await apis[n].ok("PUT", path, {"userSays": phrases})
        run = await new_run(apis[(n + 1) % 3], story_id, ran_at)
        ran_at = run["ranAt"]
        verdicts.append((run["failed"], run["results"][0]["broken"]))

    assert verdicts == [(1, True), (0, False), (0, False)]
    after = await runs_after_edits(apis)
    assert [a - b for a, b in zip(after, before, strict=True)] == [1, 1, 1]


async def test_an_import_on_one_replica_is_answered_by_the_others(tenant: list[Tenant]) -> None:
    story_id = (await tenant[1].developer.ok("POST", "/stories/import", SHOP))["id"]

    for replica in (tenant[0], tenant[2]):
        assert await answered(replica.public, story_id, "when are you open") == ["Nine to five."]
    run = await new_run(tenant[2].developer, story_id, None)  # the run B made, read on C
    assert (run["passed"], run["failed"]) == (1, 0)


async def test_a_version_published_on_one_replica_answers_the_public_key_on_all(
    tenant: list[Tenant],
) -> None:
    a, b, c = (t.developer for t in tenant)
    story_id = await a.create_story("Shop")
    hours = await a.create_interaction(story_id, **HOURS, responses=says("Nine to five."))
    for replica in tenant:  # each holds the draft compiled, for both keys
        for api in (replica.public, replica.developer):
            assert await answered(api, story_id, "when are you open") == ["Nine to five."]
    version = await b.ok("POST", f"/stories/{story_id}/versions", {"note": "first"})
    publish = {"name": "Shop", "description": "", "settings": {"published": version["id"]}}
    await c.ok("PUT", f"/stories/{story_id}", publish)
    edit = {"responses": says("Ten to six.")}
    await a.ok("PUT", f"/stories/{story_id}/interactions/{hours}", edit)

    for replica in tenant:  # the public key answers from the version, the token the draft
        await answers(replica.public, story_id, "when are you open", ["Nine to five."])
        await answers(replica.developer, story_id, "when are you open", ["Ten to six."])


async def test_an_inbox_action_on_one_replica_holds_on_the_others(tenant: list[Tenant]) -> None:
    a, b, c = (t.developer for t in tenant)
    story_id = await a.create_story("Shop")
    hours = await a.create_interaction(story_id, **HOURS, responses=says("Nine to five."))
    answer = ["Nine to five."]
    assert await answered(tenant[2].public, story_id, "when are you open") == answer  # C warm
    miss = "can i come by on saturday"
    assert await answered(tenant[0].public, story_id, miss) != answer

    async def in_b_s_inbox() -> list[dict[str, Any]]:
        return list((await b.ok("GET", f"/stories/{story_id}/inbox"))["clusters"])

    (cluster,) = await eventually(in_b_s_inbox, BOUND_SECONDS)  # A's turn, recorded
    path = f"/stories/{story_id}/inbox/{cluster['id']}/assign"
    assert (await b.ok("POST", path, {"interaction": hours}))["added"] == [miss]

    # Asked as the console's test chat does, so C's fallbacks until it has the edit are
    # never misses of its own.
    await answers(c, story_id, miss, answer, default_source="console")
    assert (await c.ok("GET", f"/stories/{story_id}/inbox"))["clusters"] == []


@pytest.fixture
async def telegram(telegram_port: int) -> AsyncIterator[TelegramStandIn]:
    stand_in = TelegramStandIn(BOT_TOKEN, url=f"http://127.0.0.1:{telegram_port}")
    runner = web.AppRunner(stand_in.app())
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", telegram_port).start()
    yield stand_in
    await runner.cleanup()


async def test_a_channel_s_turns_are_answered_by_whichever_replica_takes_them(
    tenant: list[Tenant], replicas: Replicas, telegram: TelegramStandIn, record_property: Any
) -> None:
    apis = [t.developer for t in tenant]
    story_id = await apis[0].create_story("Shop")
    hours = await apis[0].create_interaction(story_id, **HOURS, responses=says("Nine to five."))
    await apis[0].ok("PUT", f"/stories/{story_id}/interactions/{hours}",
                     {"responses": says("Ten to six.")})  # fmt: skip
    for api in apis[1:]:  # the edit reached every replica
        await answers(api, story_id, "when are you open", ["Ten to six."])

    assert replicas.integrations_api is not None
    owner = tenant[0].tokens.developer_token
    async with api_at(replicas.integrations_api.url, owner) as channels:
        await create_channel(channels, story_id, "telegram", {"botToken": BOT_TOKEN})
        inbound = "/" + telegram.webhook["url"].split("/", 3)[3]
        secret = {SECRET_HEADER: telegram.webhook["secret_token"]}
        before = await matched(apis)
        answered_by: set[int] = set()
        for update in range(1, TURNS_AT_MOST + 1):
            message = message_update(update, "when are you open")
            async with channels.client.post(inbound, json=message, headers=secret) as reply:
                assert reply.status == 200
            await arrived_at_telegram(telegram, update)
            now = await matched(apis)
            answered_by = {n for n in range(len(apis)) if now[n] > before[n]}
            if len(answered_by) == len(apis):
                break
    record_property("channel messages until each replica answered one", update)
    assert answered_by == {0, 1, 2}
    assert {sent["text"] for sent in telegram.of("sendMessage")} == {"Ten to six."}


async def matched(apis: list[Api]) -> list[float]:
    """The turns each replica answered with a match (a channel's, here)."""
    return [await metric(api, "parley_query_outcomes_total", outcome="matched") for api in apis]


async def arrived_at_telegram(telegram: TelegramStandIn, answers: int) -> None:
    async def all_sent() -> bool:
        return len(telegram.of("sendMessage")) >= answers

    await eventually(all_sent, BOUND_SECONDS)
