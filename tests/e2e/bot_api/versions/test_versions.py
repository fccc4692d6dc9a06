"""A story's versions through the API (docs/versions.md): frozen, listed, read, compared,
restored; one published answers the public key while the developer token's /query
answers from the draft, and a conversation carries on across a publish."""

from typing import Any

from support.api import Api, Tenant
from support.walkthrough import pizza_story


async def freeze(api: Api, story_id: str, note: str = "") -> str:
    made = await api.ok("POST", f"/stories/{story_id}/versions", {"note": note})
    return str(made["id"])


async def publish(api: Api, story_id: str, version_id: str | None, **extra: Any) -> Any:
    story = await api.story(story_id)
    body = {
        "name": story["name"],
        "description": story["description"],
        "settings": {"published": version_id},
        **extra,
    }
    return await api.put(f"/stories/{story_id}", body)


async def answer(api: Api, story_id: str, query: str, session: str = "s1") -> dict[str, Any]:
    body = {"storyId": story_id, "sessionId": session, "query": query}
    return dict((await api.ok("POST", "/query", body))["result"])


def texts(result: dict[str, Any]) -> list[str]:
    return [item["message"] for item in result["fulfillment"] if item["type"] == "text"]


async def order_id(api: Api, story_id: str) -> str:
    story = await api.story(story_id)
    return next(i for i, s in story["interactions"].items() if s["name"] == "Order")


async def change_the_answer(api: Api, story_id: str, text: str) -> None:
    path = f"/stories/{story_id}/interactions/{await order_id(api, story_id)}"
    await api.ok("PUT", path, {"responses": [{"type": "text", "messages": [text]}]})


async def test_versions_are_numbered_listed_newest_first_and_read_whole(api: Api) -> None:
    story_id = await pizza_story(api)
    made = await api.ok("POST", f"/stories/{story_id}/versions", {"note": "first menu"})
    assert made["number"] == 1
    second = await freeze(api, story_id, "second")

    listed = await api.ok("GET", f"/stories/{story_id}/versions")
    assert [(v["id"], v["number"], v["note"], v["published"]) for v in listed] == [
        (second, 2, "second", False),
        (made["id"], 1, "first menu", False),
    ]
    read = await api.ok("GET", f"/stories/{story_id}/versions/{made['id']}")
    assert read["note"] == "first menu" and read["createdAt"].endswith("Z")
    assert read["document"] == await api.ok("GET", f"/stories/{story_id}/export")


async def test_a_version_is_its_own_story_s_and_account_s_only(alice: Tenant, bob: Tenant) -> None:
    story_id = await pizza_story(alice.developer)
    other_story = await alice.developer.create_story("Other")
    version_id = await freeze(alice.developer, story_id)

    for api, story, version in (
        (bob.developer, story_id, version_id),
        (alice.developer, other_story, version_id),
        (alice.developer, story_id, "f" * 24),
        (alice.developer, story_id, "not-an-id"),
    ):
        reply = await api.get(f"/stories/{story}/versions/{version}")
        assert reply.error == (404, "not_found"), (story, version)
    assert (await bob.developer.get(f"/stories/{story_id}/versions")).status == 404
    reply = await publish(alice.developer, other_story, version_id)
    assert reply.error == (404, "not_found")
    reply = await publish(alice.developer, story_id, "nope")
    assert reply.error == (400, "validation_error")


ORDER_ANSWER = [
    {"type": "text", "messages": ["One {{size}} pizza coming up!"]},
    {"type": "quickReply", "title": "Anything else?", "replies": ["Drinks", "No"]},
]
TWO_PIZZAS = [{"type": "text", "messages": ["Two pizzas coming."]}]


async def test_the_diff_names_what_changed_by_key(api: Api) -> None:
    story_id = await pizza_story(api)
    version_id = await freeze(api, story_id)
    path = f"/stories/{story_id}/interactions/{await order_id(api, story_id)}"
    await api.ok("PUT", path, {"userSays": ["I want a {{size:size}} pizza", "pizza time"]})
    await change_the_answer(api, story_id, "Two pizzas coming.")
    await api.create_interaction(story_id, "Opening hours", userSays=["when are you open"])
    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {"name": "Pizza", "description": "", "settings": {"lifespan": 3}},
    )
    entity = (await api.ok("GET", "/entities"))[0]
    entries = [*entity["entries"], {"value": "medium", "synonyms": [{"value": "medium"}]}]
    await api.ok("PUT", f"/entities/{entity['id']}", {"name": "size", "entries": entries})

    found = await api.ok("GET", f"/stories/{story_id}/versions/{version_id}/diff")

    assert (found["from"], found["to"]) == (version_id, "draft")
    assert found["interactions"]["added"] == [{"key": "opening-hours", "name": "Opening hours"}]
    assert found["interactions"]["removed"] == []
    assert found["interactions"]["changed"] == [
        {
            "key": "order",
            "name": "Order",
            "fields": ["userSays", "responses"],
            "phrasesAdded": ["pizza time"],
            "phrasesRemoved": ["a pizza please"],
            "changes": [{"name": "responses", "from": ORDER_ANSWER, "to": TWO_PIZZAS}],
        }
    ]
    assert found["settings"] == [{"name": "lifespan", "from": 2, "to": 3}]
    assert found["entities"] == {
        "added": [],
        "removed": [],
        "changed": [
            {"name": "size", "entriesAdded": ["medium"], "entriesRemoved": [], "entriesChanged": []}
        ],
    }
    later = await freeze(api, story_id)
    between = await api.ok("GET", f"/stories/{story_id}/versions/{version_id}/diff?to={later}")
    assert between["interactions"] == found["interactions"]
    same = await api.ok("GET", f"/stories/{story_id}/versions/{later}/diff")
    assert same["interactions"] == {"added": [], "removed": [], "changed": []}
    reply = await api.get(f"/stories/{story_id}/versions/{version_id}/diff?to=tomorrow")
    assert reply.error == (400, "validation_error")


async def test_restore_makes_the_draft_the_version_again_under_the_same_ids(api: Api) -> None:
    story_id = await pizza_story(api)
    version_id = await freeze(api, story_id)
    before = await api.story(story_id)
    await change_the_answer(api, story_id, "No pizza today")
    await api.create_interaction(story_id, "Opening hours", userSays=["when are you open"])
    drinks = next(i for i, s in before["interactions"].items() if s["name"] == "Drinks")
    await api.ok("DELETE", f"/stories/{story_id}/interactions", [drinks])

    await api.ok("POST", f"/stories/{story_id}/versions/{version_id}/restore")

    document = (await api.ok("GET", f"/stories/{story_id}/versions/{version_id}"))["document"]
    assert await api.ok("GET", f"/stories/{story_id}/export") == document
    after = await api.story(story_id)
    assert after["order"] == before["order"] and after["story"] == before["story"]
    result = await answer(api, story_id, "a big pizza please")
    assert texts(result) == ["One large pizza coming up!"]


async def test_the_public_key_answers_from_the_published_version_the_developer_from_the_draft(
    alice: Tenant,
) -> None:
    api = alice.developer
    story_id = await pizza_story(api)
    version_id = await freeze(api, story_id, "live")
    await change_the_answer(api, story_id, "Draft pizza")
    assert texts(await answer(alice.public, story_id, "a big pizza please")) == ["Draft pizza"]

    assert (await publish(api, story_id, version_id)).status == 200

    assert (await api.story(story_id))["settings"]["published"] == version_id
    listed = await api.ok("GET", f"/stories/{story_id}/versions")
    assert listed[0]["published"] is True
    public = await answer(alice.public, story_id, "a big pizza please", "p1")
    assert texts(public) == ["One large pizza coming up!"]
    assert texts(await answer(api, story_id, "a big pizza please", "d1")) == ["Draft pizza"]
    await change_the_answer(api, story_id, "Draft pizza, edited")
    public = await answer(alice.public, story_id, "a big pizza please", "p2")
    assert texts(public) == ["One large pizza coming up!"]

    assert (await publish(api, story_id, None)).status == 200
    assert (await api.story(story_id))["settings"]["published"] is None
    assert texts(await answer(alice.public, story_id, "a big pizza please", "p3")) == [
        "Draft pizza, edited"
    ]


async def test_a_conversation_carries_on_across_a_publish(alice: Tenant) -> None:
    api = alice.developer
    story_id = await pizza_story(api)
    version_id = await freeze(api, story_id)
    await change_the_answer(api, story_id, "Draft pizza")
    assert (await answer(alice.public, story_id, "a big pizza please"))["interaction"][
        "name"
    ] == "Order"

    await publish(api, story_id, version_id)

    follow_up = await answer(alice.public, story_id, "something to drink")
    assert follow_up["interaction"]["name"] == "Drinks"
    assert texts(follow_up) == ["Cola or water?"]


async def test_a_published_version_is_not_deleted_and_a_story_s_deletion_takes_its_versions(
    api: Api,
) -> None:
    story_id = await pizza_story(api)
    kept, spare = await freeze(api, story_id), await freeze(api, story_id)
    await publish(api, story_id, kept)

    reply = await api.delete(f"/stories/{story_id}/versions/{kept}")
    assert reply.error == (409, "conflict")
    await api.ok("DELETE", f"/stories/{story_id}/versions/{spare}")
    assert [v["id"] for v in await api.ok("GET", f"/stories/{story_id}/versions")] == [kept]

    await api.ok("DELETE", f"/stories/{story_id}")
    assert (await api.get(f"/stories/{story_id}/versions/{kept}")).status == 404


async def test_tests_run_against_a_version_and_guard_its_publishing(api: Api) -> None:
    """A version whose conversation tests fail is published only with `force`."""
    story_id = await pizza_story(api)
    expect_order = {"query": "a big pizza please", "expect": {"interaction": "Order"}}
    await api.ok("POST", f"/stories/{story_id}/tests", {"name": "order", "turns": [expect_order]})
    good = await freeze(api, story_id, "orders")
    path = f"/stories/{story_id}/interactions/{await order_id(api, story_id)}"
    await api.ok("PUT", path, {"name": "Ordering"})
    broken = await freeze(api, story_id, "renamed")

    runs = {}
    for version_id in (good, broken):
        body = {"version": version_id}
        runs[version_id] = await api.ok("POST", f"/stories/{story_id}/tests/run", body)
    assert (runs[good]["passed"], runs[good]["failed"]) == (1, 0)
    assert (runs[broken]["passed"], runs[broken]["failed"]) == (0, 1)

    assert (await publish(api, story_id, good)).status == 200
    refused = await publish(api, story_id, broken)
    assert refused.error == (409, "conflict"), refused.body
    assert (await api.story(story_id))["settings"]["published"] == good
    assert (await publish(api, story_id, broken, force=True)).status == 200
    assert (await api.story(story_id))["settings"]["published"] == broken
    unknown = await api.post(f"/stories/{story_id}/tests/run", {"version": "c" * 24})
    assert unknown.error == (404, "not_found")
