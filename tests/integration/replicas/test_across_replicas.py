"""Whichever replica a request lands on, it answers as the one that took the last edit,
carries the conversation on, and holds the account's rate limit and quota as a whole
(docs/scaling.md "What holds across replicas, tested")."""

import asyncio
import time
import uuid
from typing import Any

from bench.stack import REPLICAS, Replicas
from support.api import Api, Tenant
from support.replicas import tenant_everywhere
from support.waiting import eventually
from support.walkthrough import pizza_story

EDIT_SECONDS = 5.0
"""The bound this test gives an edit to reach the other replicas; the goal, 1 s at the
99th percentile, is `make bench`'s figure (docs/benchmarks.md "What holds across three
replicas")."""
RATE, BURST = 1.0, 30
"""An account's /query limit in the rate test: each replica takes a third of both."""
QUERIES_PER_REPLICA = 20
STORIES_QUOTA = 3


async def ask(api: Api, story_id: str, session_id: str, query: str) -> dict[str, Any]:
    body = {"storyId": story_id, "sessionId": session_id, "query": query}
    return dict(await api.ok("POST", "/query", body))


def answer(reply: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The name of the interaction that answered, and the answer's texts."""
    result = reply["result"]
    name = None if result["interaction"] is None else result["interaction"]["name"]
    return name, [i["message"] for i in result["fulfillment"] if i["type"] == "text"]


async def answered(
    api: Api, story_id: str, query: str, expected: tuple[str | None, list[str]]
) -> None:
    """Until the replica answers `query` with `expected`."""

    async def as_expected() -> bool:
        return answer(await ask(api, story_id, uuid.uuid4().hex, query)) == expected

    await eventually(as_expected, EDIT_SECONDS)


async def test_an_edit_on_one_replica_is_answered_by_every_replica(
    tenant: list[Tenant], record_property: Any
) -> None:
    editor = tenant[0].developer
    story_id = await editor.create_story("Shop")
    hours = await editor.create_interaction(
        story_id,
        "Hours",
        userSays=["when are you open"],
        responses=[{"type": "text", "messages": ["Nine to five."]}],
    )
    others = [t.public for t in tenant[1:]]
    for replica in others:  # each holds the story as compiled before the edit
        reply = await ask(replica, story_id, uuid.uuid4().hex, "when are you open")
        assert answer(reply) == ("Hours", ["Nine to five."])

    edit = {
        "userSays": ["opening times"],
        "responses": [{"type": "text", "messages": ["Ten to six."]}],
    }
    await editor.ok("PUT", f"/stories/{story_id}/interactions/{hours}", edit)
    edited = time.monotonic()
    for name, replica in zip("BC", others, strict=True):
        await answered(replica, story_id, "opening times", ("Hours", ["Ten to six."]))
        record_property(
            f"seconds until {name} answered the edit", round(time.monotonic() - edited, 3)
        )


async def test_a_conversation_goes_on_whichever_replica_takes_its_next_turn(
    tenant: list[Tenant],
) -> None:
    a, b, c = (t.public for t in tenant)
    story_id = await pizza_story(tenant[0].developer)
    session = uuid.uuid4().hex

    asked = await ask(a, story_id, session, "a pizza please")
    assert (answer(asked), asked["result"]["incomplete"]) == (("Order", ["Which size?"]), True)
    filled = await ask(b, story_id, session, "big")  # the prompt A asked, answered on B
    assert answer(filled) == ("Order", ["One large pizza coming up!"])
    assert filled["result"]["parameters"]["size"] == "large"
    followed = await ask(c, story_id, session, "something to drink")  # B's context, on C
    assert answer(followed) == ("Drinks", ["Cola or water?"])

    elsewhere = await ask(c, story_id, uuid.uuid4().hex, "something to drink")
    assert answer(elsewhere)[0] != "Drinks"  # only in the context that conversation opened


async def test_an_account_s_rate_limit_holds_across_the_replicas(
    replicas: Replicas, record_property: Any
) -> None:
    """Each replica counts the others and takes a third of the rate and the burst, so the
    three accept what one would: the burst and the rate over the time taken (3 × as
    many if each took the whole limit)."""
    async with tenant_everywhere(replicas, query_rate=RATE, query_burst=BURST) as tenant:
        story_id = await tenant[0].developer.create_story("Limited")
        started = time.monotonic()
        replies = await asyncio.gather(
            *(
                t.public.call(
                    "POST",
                    "/query",
                    {"storyId": story_id, "sessionId": f"s{n}", "trigger": "welcome"},
                )
                for n in range(QUERIES_PER_REPLICA)
                for t in tenant
            )
        )
        elapsed = time.monotonic() - started
    statuses = [reply.status for reply in replies]
    accepted = statuses.count(200)
    record_property(f"accepted of {len(statuses)} over {REPLICAS} replicas", accepted)
    assert set(statuses) <= {200, 429}
    assert BURST <= accepted <= BURST + RATE * elapsed + REPLICAS  # a token of rounding each


async def test_the_stories_quota_holds_when_creates_race_on_every_replica(
    replicas: Replicas,
) -> None:
    """A racing create that counts the account past its quota once written takes its
    story back: racing creates may all be refused, never kept past the quota, and the
    account can then fill exactly its quota."""
    async with tenant_everywhere(replicas, quota_stories=STORIES_QUOTA) as tenant:
        apis = [t.developer for t in tenant]
        story = {"name": "Raced", "description": ""}
        replies = await asyncio.gather(
            *(api.call("POST", "/stories", story) for _ in range(STORIES_QUOTA) for api in apis)
        )
        raced = {reply.body["id"] for reply in replies if reply.status == 200}
        refused = [reply for reply in replies if reply.status != 200]
        assert len(raced) <= STORIES_QUOTA
        assert {listed["id"] for listed in await apis[0].ok("GET", "/stories")} == raced
        for n in range(STORIES_QUOTA - len(raced)):  # one at a time, on each replica in turn
            await apis[n % REPLICAS].ok("POST", "/stories", story)
        refused.append(await apis[1].call("POST", "/stories", story))
        assert len(await apis[2].ok("GET", "/stories")) == STORIES_QUOTA
    assert {(r.error, r.body["status"]["errors"]["quota"]) for r in refused} == {
        ((409, "conflict"), "stories")
    }


async def test_the_interactions_quota_holds_when_adds_race_on_every_replica(
    replicas: Replicas,
) -> None:
    """Each add is a conditional write of the story that counts its interactions: of
    those racing, exactly as many as the quota leaves room for land."""
    quota = 5  # the welcome and the fallback, and three more
    async with tenant_everywhere(replicas, quota_interactions_per_story=quota) as tenant:
        story_id = await tenant[0].developer.create_story("Small")
        replies = await asyncio.gather(
            *(
                t.developer.call("POST", f"/stories/{story_id}/interactions", {"name": f"I{n}"})
                for n in range(3)
                for t in tenant
            )
        )
        story = await tenant[1].developer.story(story_id)
    assert sorted(reply.status for reply in replies) == [200] * 3 + [409] * 6
    assert len(story["interactions"]) == quota
