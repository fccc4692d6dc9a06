"""Creates sent with an `Idempotency-Key`: a retry answers the first result and stores
nothing new; the same key with another body is a 409 (docs/reliability.md)."""

import asyncio
from typing import Any

from support.api import Api, Reply


async def post_with_key(api: Api, path: str, body: Any, key: str) -> Reply:
    return await api.call("POST", path, body, headers={"Idempotency-Key": key})


async def test_a_story_create_retried_with_its_key_is_stored_once(api: Api) -> None:
    body = {"name": "Once", "description": ""}
    first = await post_with_key(api, "/stories", body, "story-1")
    again = await post_with_key(api, "/stories", body, "story-1")
    assert first.status == again.status == 200
    assert again.body == first.body
    other = await post_with_key(api, "/stories", body, "story-2")
    assert other.body["id"] != first.body["id"]
    names = [s["name"] for s in await api.ok("GET", "/stories")]
    assert names == ["Once", "Once"]


async def test_an_interaction_create_retried_with_its_key_is_stored_once(
    api: Api, story_id: str
) -> None:
    path = f"/stories/{story_id}/interactions"
    body = {"name": "Order", "userSays": ["a pizza please"]}
    first = await post_with_key(api, path, body, "i-1")
    again = await post_with_key(api, path, body, "i-1")
    assert first.status == 200 and again.body == first.body
    child = await post_with_key(api, f"{path}/{first.body['id']}", body, "i-1")
    assert child.status == 200 and child.body["id"] != first.body["id"]
    listed = await api.ok("GET", path)
    assert [i["name"] for i in listed].count("Order") == 2


async def test_an_entity_create_retried_with_its_key_is_stored_once(api: Api) -> None:
    body = {"name": "size", "entries": [{"value": "large", "synonyms": [{"value": "large"}]}]}
    first = await post_with_key(api, "/entities", body, "e-1")
    again = await post_with_key(api, "/entities", body, "e-1")
    assert first.status == again.status == 200 and again.body == first.body
    assert len(await api.ok("GET", "/entities")) == 1


async def test_a_key_reused_with_another_body_is_a_conflict(api: Api) -> None:
    await post_with_key(api, "/stories", {"name": "A", "description": ""}, "k")
    reused = await post_with_key(api, "/stories", {"name": "B", "description": ""}, "k")
    assert reused.error == (409, "conflict")
    assert [s["name"] for s in await api.ok("GET", "/stories")] == ["A"]


async def test_keys_are_per_account(api: Api, bob: Any) -> None:
    body = {"name": "Mine", "description": ""}
    mine = await post_with_key(api, "/stories", body, "shared-key")
    theirs = await post_with_key(bob.developer, "/stories", body, "shared-key")
    assert theirs.status == 200 and theirs.body["id"] != mine.body["id"]
    assert len(await bob.developer.ok("GET", "/stories")) == 1


async def test_a_malformed_key_is_a_400(api: Api) -> None:
    reply = await post_with_key(api, "/stories", {"name": "A", "description": ""}, "x" * 256)
    assert reply.error == (400, "bad_request")


RACERS = 8


async def race(api: Api, path: str, body: Any, key: str) -> list[Reply]:
    """RACERS creates sharing one key, sent at once."""
    return list(await asyncio.gather(*(post_with_key(api, path, body, key) for _ in range(RACERS))))


def winners_answer(replies: list[Reply], success: int = 200) -> Any:
    """Every reply is the winner's answer or a 409 while it was in flight: never a 500."""
    assert {r.status for r in replies} <= {success, 409}, [(r.status, r.body) for r in replies]
    answers = [r.body for r in replies if r.status == success]
    assert answers and all(a == answers[0] for a in answers)
    in_flight = [r for r in replies if r.status == 409]
    assert all("in progress" in r.details and r.headers["Retry-After"] == "1" for r in in_flight)
    return answers[0]


async def test_concurrent_creates_sharing_a_key_store_one_record_and_never_fail(
    api: Api, story_id: str
) -> None:
    entries = [{"value": "large", "synonyms": [{"value": "large"}]}]
    creates = [
        ("/stories", {"name": "Raced", "description": ""}),
        ("/entities", {"name": "raced", "entries": entries}),
        (f"/stories/{story_id}/interactions", {"name": "Raced"}),
    ]
    for path, body in creates:
        answer = winners_answer(await race(api, path, body, f"race {path}"))
        listed = await api.ok("GET", path)
        assert [r["id"] for r in listed if r["name"].lower() == "raced"] == [answer["id"]]
        retried = await post_with_key(api, path, body, f"race {path}")
        assert retried.status == 200 and retried.body == answer
