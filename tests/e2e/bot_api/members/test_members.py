"""`/account/members` and its tokens, through the API: roles, bounds, the last owner,
tokens shown once, refused at once when revoked."""

from typing import Any

from pymongo import MongoClient

from shared.config import Config
from shared.members import MAX_TOKENS_PER_MEMBER
from support.api import Api, Tenant

MEMBERS = "/account/members"


def person(email: str = "ada@example.com", role: str = "editor", **more: Any) -> dict[str, Any]:
    return {"email": email, "name": "Ada", "role": role, **more}


async def add(api: Api, **fields: Any) -> dict[str, Any]:
    reply = await api.post(MEMBERS, person(**fields))
    assert reply.status == 201, reply.body
    body: dict[str, Any] = reply.body
    return body


async def token_of(api: Api, member_id: str) -> str:
    reply = await api.post(f"{MEMBERS}/{member_id}/tokens", {"name": "laptop"})
    assert reply.status == 201, reply.body
    token: str = reply.body["token"]
    return token


async def test_an_owner_adds_reads_changes_and_removes_a_member(api: Api) -> None:
    member = await add(api)
    assert member["role"] == "editor" and member["stories"] is None
    assert await api.ok("GET", f"{MEMBERS}/{member['id']}") == member
    changed = await api.ok("PUT", f"{MEMBERS}/{member['id']}", {**member, "role": "viewer"})
    assert changed["role"] == "viewer"
    assert [m["id"] for m in await api.ok("GET", MEMBERS)] == [member["id"]]
    assert (await api.delete(f"{MEMBERS}/{member['id']}")).status == 200
    assert (await api.get(f"{MEMBERS}/{member['id']}")).status == 404


async def test_bad_input_is_a_clear_400(api: Api, story_id: str) -> None:
    cases = [
        person(email="not an e-mail"),
        person(role="admin"),
        person(name=""),
        {**person(), "stories": []},
        {**person(), "stories": ["nope"]},
        {**person(), "stories": ["0123456789abcdef01234567"]},
        {**person(role="owner"), "stories": [story_id]},
        {**person(), "extra": 1},
    ]
    for body in cases:
        reply = await api.post(MEMBERS, body)
        assert reply.status == 400, (body, reply.body)
        assert reply.details, body


async def test_emails_are_unique_per_account_whatever_their_case(api: Api, bob: Tenant) -> None:
    await add(api, email="Ada@Example.com")
    assert (await api.post(MEMBERS, person(email="ada@example.COM"))).status == 409
    await add(bob.developer, email="ada@example.com")


async def test_a_subject_is_one_members_per_account_and_kept_as_sent(api: Api, bob: Tenant) -> None:
    ada = await add(api, subject="kc|ada")
    assert ada["subject"] == "kc|ada"
    taken = await api.post(MEMBERS, person(email="eve@example.com", subject="kc|ada"))
    assert taken.status == 409 and "ada@example.com" in taken.details
    await add(bob.developer, subject="kc|ada")
    assert (await api.post(MEMBERS, person(email="x@example.com", subject=""))).status == 400
    too_long = person(email="x@example.com", subject="s" * 256)
    assert (await api.post(MEMBERS, too_long)).status == 400
    assert (await api.ok("PUT", f"{MEMBERS}/{ada['id']}", ada))["subject"] == "kc|ada"
    unlinked = {key: value for key, value in ada.items() if key != "subject"}
    assert (await api.ok("PUT", f"{MEMBERS}/{ada['id']}", unlinked))["subject"] is None


async def test_the_last_owner_can_be_neither_removed_nor_demoted(api: Api) -> None:
    first = await add(api, email="one@example.com", role="owner")
    assert (await api.delete(f"{MEMBERS}/{first['id']}")).status == 409
    demoted = {**first, "role": "editor"}
    assert (await api.put(f"{MEMBERS}/{first['id']}", demoted)).status == 409
    second = await add(api, email="two@example.com", role="owner")
    assert (await api.put(f"{MEMBERS}/{first['id']}", demoted)).status == 200
    assert (await api.delete(f"{MEMBERS}/{second['id']}")).status == 409


async def test_a_token_is_shown_once_stored_hashed_and_refused_once_revoked(
    api: Api, config: Config
) -> None:
    member = await add(api, role="viewer")
    issued = (await api.post(f"{MEMBERS}/{member['id']}/tokens", {"name": "ci"})).body
    assert issued["token"].startswith("pmt_")
    listed = await api.ok("GET", f"{MEMBERS}/{member['id']}/tokens")
    assert [t["name"] for t in listed] == ["ci"] and "token" not in listed[0]
    with MongoClient(config.mongodb_url) as client:
        stored = str(list(client[config.accounts_database]["member_tokens"].find({})))
    assert issued["token"] not in stored
    viewer = api.as_token(issued["token"])
    me = await viewer.ok("GET", "/account/me")
    assert (me["memberId"], me["role"], me["tokenId"]) == (member["id"], "viewer", issued["id"])
    assert (await viewer.get("/stories")).status == 200
    path = f"{MEMBERS}/{member['id']}/tokens/{issued['id']}"
    assert (await api.delete(path)).status == 200
    assert (await viewer.get("/stories")).status == 401
    assert (await api.delete(path)).status == 404


async def test_removing_a_member_refuses_their_tokens(api: Api) -> None:
    member = await add(api)
    editor = api.as_token(await token_of(api, member["id"]))
    assert (await editor.get("/stories")).status == 200
    await api.delete(f"{MEMBERS}/{member['id']}")
    assert (await editor.get("/stories")).status == 401


async def test_tokens_are_bounded_and_expire_within_a_year(api: Api) -> None:
    member = await add(api)
    tokens = f"{MEMBERS}/{member['id']}/tokens"
    for past_or_far in ("2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z", "tomorrow"):
        reply = await api.post(tokens, {"name": "x", "expiresAt": past_or_far})
        assert reply.status == 400, reply.body
    for _ in range(MAX_TOKENS_PER_MEMBER):
        await token_of(api, member["id"])
    assert (await api.post(tokens, {"name": "one more"})).status == 409


async def test_a_member_narrowed_to_a_story_sees_no_other(api: Api, story_id: str) -> None:
    other = await api.create_story("Other")
    member = await add(api, stories=[story_id])
    editor = api.as_token(await token_of(api, member["id"]))
    assert [s["id"] for s in await editor.ok("GET", "/stories")] == [story_id]
    assert (await editor.get(f"/stories/{story_id}")).status == 200
    hidden = await editor.get(f"/stories/{other}")
    assert hidden.error == (404, "not_found")
    assert (await api.get("/stories/0123456789abcdef01234567")).details.startswith("no story")
    assert (await editor.post("/stories", {"name": "New", "description": ""})).status == 403
    query = {"storyId": other, "sessionId": "s1", "query": "hi"}
    assert (await editor.post("/query", query)).status == 404
    assert (await editor.post("/query", {**query, "storyId": story_id})).status == 200


async def test_an_editor_edits_but_does_not_publish(api: Api, story_id: str) -> None:
    member = await add(api, role="editor")
    editor = api.as_token(await token_of(api, member["id"]))
    version = await api.ok("POST", f"/stories/{story_id}/versions", {"note": "v1"})
    story = {"name": "Pizza", "description": ""}
    publish = {**story, "settings": {"published": version["id"]}}
    assert (await editor.put(f"/stories/{story_id}", publish)).error == (403, "forbidden")
    assert (await editor.put(f"/stories/{story_id}", story)).status == 200
    assert (await api.put(f"/stories/{story_id}", publish)).status == 200
    assert (await editor.put(f"/stories/{story_id}", publish)).status == 200  # sent back as is


async def test_only_owners_manage_members(api: Api) -> None:
    member = await add(api, role="publisher")
    publisher = api.as_token(await token_of(api, member["id"]))
    assert (await publisher.get(MEMBERS)).error == (403, "forbidden")
    assert (await publisher.post(MEMBERS, person(email="x@example.com"))).status == 403
