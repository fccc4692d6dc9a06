"""The audit log over HTTP (docs/teams.md "Audit log"): one record per change, who,
when, what and a short before -> after; refused changes and replays leave none; the
account reads its own records only, newest first, page by page, or as JSON lines; and a
change whose record cannot be written is not made (a 503)."""

import json
from typing import Any

from aiohttp.test_utils import TestClient
from pymongo import AsyncMongoClient

from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api, Tenant

DEVELOPER = {"kind": "developer token", "id": "developer", "name": "Developer token"}


async def audit(api: Api, query: str = "") -> dict[str, Any]:
    return dict(await api.ok("GET", f"/audit{query}"))


async def kinds(api: Api) -> list[str]:
    return [item["kind"] for item in (await audit(api, "?limit=200"))["items"]]


async def test_each_change_leaves_one_record_of_who_when_what_and_before_after(api: Api) -> None:
    story_id = await api.create_story("Pizza")
    await api.ok("PUT", f"/stories/{story_id}", {"name": "Pasta", "description": "fresh"})
    version = await api.ok("POST", f"/stories/{story_id}/versions", {"note": "first"})
    published = {"published": version["id"]}
    renamed = {"name": "Pasta", "description": "fresh"}
    await api.ok("PUT", f"/stories/{story_id}", {**renamed, "settings": published})

    items = (await audit(api))["items"]

    assert [item["kind"] for item in items] == [
        "story.publish",
        "version.create",
        "story.update",
        "story.create",
    ]
    publish, freeze, update, create = items
    assert all(item["actor"] == DEVELOPER and item["confirmed"] for item in items)
    assert all(item["storyId"] == story_id for item in items)
    assert (create["target"], update["target"], freeze["target"]) == (
        story_id,
        story_id,
        version["id"],
    )
    assert create["summary"] == 'name: "Pizza"; description: ""; settings'
    assert update["summary"] == 'name: "Pizza" -> "Pasta"; description: "" -> "fresh"; force: false'
    assert f'settings.published: null -> "{version["id"]}"' in publish["summary"]
    assert freeze["summary"] == 'note: "first"'
    assert items[0]["at"] >= items[-1]["at"]
    read = await api.ok("GET", f"/stories/{story_id}/versions/{version['id']}")
    assert (read["frozenBy"], read["publishedBy"]) == (DEVELOPER, DEVELOPER)


async def test_a_refused_change_and_a_replay_leave_no_record(api: Api) -> None:
    story_id = await api.create_story("Pizza")
    missing = "a" * 24

    assert (await api.put(f"/stories/{missing}", {"name": "x", "description": ""})).status == 404
    assert (await api.put(f"/stories/{story_id}", {"name": ""})).status == 400
    assert (await api.delete(f"/stories/{story_id}/versions/{missing}")).status == 404
    key = {"Idempotency-Key": "entity-1"}
    entity = {"name": "size", "entries": [{"value": "large", "synonyms": [{"value": "large"}]}]}
    first = await api.call("POST", "/entities", entity, headers=key)
    again = await api.call("POST", "/entities", entity, headers=key)
    assert first.body["id"] == again.body["id"]

    assert await kinds(api) == ["entity.create", "story.create"]


async def test_an_account_reads_its_own_records_only(
    alice: Tenant, bob: Tenant, accounts: AccountRepository, bot_api: TestClient
) -> None:
    carol_tokens = await accounts.create("carol")
    carol = Api(bot_api, carol_tokens.developer_token)
    for api, name in ((alice.developer, "A"), (bob.developer, "B"), (carol, "C")):
        story_id = await api.create_story(name)
        await api.ok("DELETE", f"/stories/{story_id}")

    for api, name in ((alice.developer, "A"), (bob.developer, "B"), (carol, "C")):
        items = (await audit(api))["items"]
        assert [item["kind"] for item in items] == ["story.delete", "story.create"]
        assert items[1]["summary"] == f'name: "{name}"; description: ""; settings'
        other = items[0]["storyId"]
        for reader in (alice.developer, bob.developer, carol):
            if reader is not api:
                assert (await audit(reader, f"?story={other}"))["items"] == []
    assert (await alice.public.get("/audit")).status == 403


async def test_pages_come_newest_first_by_cursor_and_filters_narrow_them(api: Api) -> None:
    stories = [await api.create_story(f"S{n}") for n in range(5)]
    await api.ok("DELETE", f"/stories/{stories[0]}")

    first = await audit(api, "?limit=2")
    second = await audit(api, f"?limit=2&cursor={first['next']}")
    third = await audit(api, f"?limit=2&cursor={second['next']}")

    everything = [i["target"] for page in (first, second, third) for i in page["items"]]
    assert everything == [stories[0], *reversed(stories)]
    assert third["next"] is None
    assert [i["kind"] for i in (await audit(api, "?kind=story.delete"))["items"]] == [
        "story.delete"
    ]
    assert len((await audit(api, f"?story={stories[0]}"))["items"]) == 2
    assert len((await audit(api, "?member=developer"))["items"]) == 6
    assert (await audit(api, "?member=someone-else"))["items"] == []
    newest = first["items"][0]["at"]
    assert len((await audit(api, f"?from={newest}"))["items"]) >= 1
    assert (await audit(api, "?to=2000-01-01T00:00:00Z"))["items"] == []
    assert (await api.get("/audit?cursor=not-a-cursor")).error == (400, "bad_request")
    assert (await api.get("/audit?limit=201")).status == 400
    assert (await api.get("/audit?kind=DROP TABLE")).status == 400


async def test_the_export_streams_json_lines_newest_first(api: Api, bot_api: TestClient) -> None:
    stories = [await api.create_story(f"S{n}") for n in range(3)]
    headers = {"Authorization": f"Bearer {api.token}"}

    async with bot_api.get("/audit/export?kind=story.create", headers=headers) as response:
        assert response.status == 200
        assert response.content_type == "application/x-ndjson"
        lines = [json.loads(line) for line in (await response.text()).splitlines()]

    assert [line["target"] for line in lines] == list(reversed(stories))
    assert lines == (await audit(api, "?kind=story.create"))["items"]


async def test_a_change_whose_record_cannot_be_written_is_not_made(
    api: Api, config: Config, mongo_client: AsyncMongoClient
) -> None:
    story_id = await api.create_story("Pizza")
    records = mongo_client[config.accounts_database]["audit"]
    # One record per account from now on: the next one of this account is refused.
    await records.create_index("accountId", unique=True)

    renamed = await api.put(f"/stories/{story_id}", {"name": "Pasta", "description": ""})
    created = await api.post("/stories", {"name": "Another", "description": ""})

    for reply in (renamed, created):
        assert reply.error == (503, "unavailable")
        assert "audit log could not record this change" in reply.details
        assert reply.body["status"]["requestId"]
    assert (await api.story(story_id))["name"] == "Pizza"
    assert [story["name"] for story in await api.ok("GET", "/stories")] == ["Pizza"]
    assert await records.count_documents({}) == 1


async def test_a_member_s_change_names_the_member_and_only_owners_read_the_log(api: Api) -> None:
    person = {"email": "ana@example.com", "name": "Ana", "role": "publisher"}
    member = (await api.post("/account/members", person)).body["id"]
    token = (await api.post(f"/account/members/{member}/tokens", {"name": "ci"})).body["token"]
    publisher = api.as_token(token)
    story_id = (await publisher.ok("POST", "/stories", {"name": "Ana's", "description": ""}))["id"]
    version = await publisher.ok("POST", f"/stories/{story_id}/versions", {"note": "v1"})
    (latest, made, *_) = (await audit(api))["items"]
    ana = {"kind": "member", "id": member, "name": "Ana"}
    assert (latest["kind"], latest["actor"]) == ("version.create", ana)
    assert (made["kind"], made["actor"], made["storyId"]) == ("story.create", ana, story_id)
    assert [i["target"] for i in (await audit(api, f"?member={member}"))["items"]] == [
        version["id"],
        story_id,
    ]
    assert (await api.ok("GET", f"/stories/{story_id}/versions/{version['id']}"))["frozenBy"] == ana
    assert (await publisher.get("/audit")).error == (403, "forbidden")
    assert (await publisher.get("/audit/export")).error == (403, "forbidden")
