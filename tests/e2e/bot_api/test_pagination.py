"""List endpoints answer every item, or pages when asked: `limit` (at most MAX_PAGE, the
default) from `offset`, with the total in `X-Total-Count` (docs/api.md "Lists")."""

import pytest

from shared.pages import MAX_PAGE
from support.api import Api


async def test_stories_come_in_pages_with_their_total(api: Api) -> None:
    ids = [await api.create_story(f"S{n}") for n in range(5)]
    page = await api.get("/stories?limit=2&offset=1")
    assert [s["id"] for s in page.body] == ids[1:3]
    assert page.headers["X-Total-Count"] == "5"
    whole = await api.get("/stories")
    assert [s["id"] for s in whole.body] == ids and whole.headers["X-Total-Count"] == "5"
    past = await api.get("/stories?offset=5")
    assert past.body == [] and past.headers["X-Total-Count"] == "5"
    from_offset = await api.get("/stories?offset=3")
    assert [s["id"] for s in from_offset.body] == ids[3:]


async def test_a_plain_list_answers_every_record_beyond_a_page(api: Api, story_id: str) -> None:
    count = MAX_PAGE + 3
    ids = [await api.create_entity(f"e{n}") for n in range(count)]
    whole = await api.get("/entities")
    assert [e["id"] for e in whole.body] == ids
    assert whole.headers["X-Total-Count"] == str(count)
    paged = await api.get("/entities?offset=0")
    assert [e["id"] for e in paged.body] == ids[:MAX_PAGE]
    for n in range(count - 2):
        await api.create_interaction(story_id, f"I{n}")
    interactions = await api.get(f"/stories/{story_id}/interactions")
    assert len(interactions.body) == count == int(interactions.headers["X-Total-Count"])
    assert [i["name"] for i in interactions.body[:2]] == ["Welcome", "Fallback"]
    assert interactions.body[-1]["name"] == f"I{count - 3}"


async def test_entities_and_interactions_come_in_pages(api: Api, story_id: str) -> None:
    for name in ("a", "b", "c"):
        await api.create_entity(name)
    entities = await api.get("/entities?limit=1&offset=2")
    assert [e["name"] for e in entities.body] == ["c"]
    assert entities.headers["X-Total-Count"] == "3"
    await api.create_interaction(story_id, "Order")
    interactions = await api.get(f"/stories/{story_id}/interactions?offset=1&limit=1")
    assert [i["name"] for i in interactions.body] == ["Fallback"]
    assert interactions.headers["X-Total-Count"] == "3"


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        f"limit={MAX_PAGE + 1}",
        "limit=x",
        "offset=-1",
        "limit=1e3",
        "offset=",
        "limit=" + "9" * 5000,
        "offset=" + "1" * 5000,
    ],
)
async def test_a_page_out_of_bounds_is_a_400_naming_it(api: Api, query: str) -> None:
    reply = await api.get(f"/stories?{query}")
    assert reply.error == (400, "validation_error")
    assert reply.details.startswith(query.split("=")[0])


async def test_leading_zeros_are_the_same_number(api: Api) -> None:
    ids = [await api.create_story(f"S{n}") for n in range(3)]
    page = await api.get("/stories?offset=" + "0" * 5000 + "1&limit=001")
    assert [s["id"] for s in page.body] == ids[1:2]
