"""Entities: named value sets with synonyms, unique per account, protected while used."""

from support.api import Api

CITY = {
    "name": "city",
    "entries": [
        {"value": "Paris", "synonyms": [{"value": "Paris"}, {"value": "City of Light"}]},
        {"value": "Rome", "synonyms": [{"value": "Rome"}]},
    ],
}


async def test_create_read_list_update_delete(api: Api) -> None:
    entity_id = (await api.ok("POST", "/entities", CITY))["id"]
    assert await api.ok("GET", f"/entities/{entity_id}") == {"id": entity_id, **CITY}
    assert await api.ok("GET", "/entities") == [{"id": entity_id, **CITY}]
    renamed = {"name": "town", "entries": CITY["entries"][:1]}
    await api.ok("PUT", f"/entities/{entity_id}", renamed)
    assert await api.ok("GET", f"/entities/{entity_id}") == {"id": entity_id, **renamed}
    await api.ok("DELETE", f"/entities/{entity_id}")
    assert (await api.get(f"/entities/{entity_id}")).error == (404, "not_found")
    assert await api.ok("GET", "/entities") == []


async def test_what_was_read_can_be_sent_back_as_an_update(api: Api) -> None:
    entity_id = (await api.ok("POST", "/entities", CITY))["id"]
    read = await api.ok("GET", f"/entities/{entity_id}")
    await api.ok("PUT", f"/entities/{entity_id}", {**read, "name": "town"})
    assert await api.ok("GET", f"/entities/{entity_id}") == {**read, "name": "town"}
    reply = await api.put(f"/entities/{entity_id}", {**read, "colour": "red"})
    assert reply.body["status"]["errors"] == {"colour": ["Unknown field."]}


async def test_names_are_unique_in_an_account(api: Api) -> None:
    await api.ok("POST", "/entities", CITY)
    assert (await api.post("/entities", CITY)).error == (409, "conflict")
    other = (await api.ok("POST", "/entities", {**CITY, "name": "place"}))["id"]
    assert (await api.put(f"/entities/{other}", CITY)).error == (409, "conflict")
    assert [e["name"] for e in await api.ok("GET", "/entities")] == ["city", "place"]


async def test_each_entry_lists_its_own_value_among_its_synonyms(api: Api) -> None:
    entry = {"value": "Paris", "synonyms": [{"value": "City of Light"}]}
    reply = await api.post("/entities", {"name": "city", "entries": [entry]})
    assert reply.error == (400, "validation_error")
    assert "synonyms" in reply.body["status"]["errors"]["entries"]["0"]
    assert await api.ok("GET", "/entities") == []


async def test_an_entity_in_use_can_be_neither_deleted_nor_renamed(api: Api) -> None:
    entity_id = (await api.ok("POST", "/entities", CITY))["id"]
    story_id = await api.create_story()
    user = await api.create_interaction(story_id, "Go", userSays=["to {{city:town}}"])
    for reply in (
        await api.delete(f"/entities/{entity_id}"),
        await api.put(f"/entities/{entity_id}", {**CITY, "name": "town"}),
    ):
        assert reply.error == (409, "conflict")
        assert reply.body["status"]["errors"] == {"interactions": [user]}
        assert user in reply.details
    assert await api.ok("GET", f"/entities/{entity_id}") == {"id": entity_id, **CITY}
    await api.ok("PUT", f"/entities/{entity_id}", {**CITY, "entries": CITY["entries"][:1]})
    await api.ok("DELETE", f"/stories/{story_id}")
    await api.ok("DELETE", f"/entities/{entity_id}")


async def test_unknown_and_malformed_entity_ids_are_not_found(api: Api) -> None:
    for entity_id in ("0123456789abcdef01234567", "nope"):
        assert (await api.get(f"/entities/{entity_id}")).error == (404, "not_found")
        assert (await api.put(f"/entities/{entity_id}", CITY)).error == (404, "not_found")
        assert (await api.delete(f"/entities/{entity_id}")).error == (404, "not_found")
