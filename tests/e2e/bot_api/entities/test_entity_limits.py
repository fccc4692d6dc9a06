"""The limits of an entity's fields, enforced at the HTTP boundary of bot-api: the maximum is
accepted and read back as sent; one more, or an empty or malformed field, is refused with
400 `validation_error` naming the field, and nothing is created or changed."""

import io
import json
import time
from typing import Any

import pytest

from support.api import Api, Reply
from support.limits import (
    count,
    entry,
    refused,
)

ENTITY_LIMITS = [
    pytest.param(
        {"name": "e" * 128, "entries": [entry("red")]},
        {"name": "e" * 129, "entries": [entry("red")]},
        "name",
        "128",
        id="name 128 chars",
    ),
    pytest.param(
        {"name": "color", "entries": [entry(f"v{i}") for i in range(2000)]},
        {"name": "color", "entries": [entry(f"v{i}") for i in range(2001)]},
        "entries",
        "2000",
        id="2000 entries",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("v" * 1024)]},
        {"name": "color", "entries": [entry("v" * 1025)]},
        "entries[0].value",
        "1024",
        id="entry value 1024 chars",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red", *(f"s{i}" for i in range(98)))]},
        {"name": "color", "entries": [entry("red", *(f"s{i}" for i in range(99)))]},
        "entries[0].synonyms",
        "99",
        id="99 synonyms",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red", "s" * 1024)]},
        {"name": "color", "entries": [entry("red", "s" * 1025)]},
        "entries[0].synonyms[1].value",
        "1024",
        id="synonym 1024 chars",
    ),
]


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), ENTITY_LIMITS)
async def test_an_entity_accepts_each_maximum(
    api: Api, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    entity_id = str((await api.ok("POST", "/entities", at_max))["id"])
    stored = await api.ok("GET", f"/entities/{entity_id}")
    assert (stored["name"], stored["entries"]) == (at_max["name"], at_max["entries"])


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), ENTITY_LIMITS)
async def test_an_entity_refuses_one_more_on_create_and_on_update(
    api: Api, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    refused(await api.post("/entities", over), path, limit)
    assert await count(api, "/entities") == 0

    entity_id = await api.create_entity("color", "red")
    before = await api.ok("GET", f"/entities/{entity_id}")
    refused(await api.put(f"/entities/{entity_id}", over), path, limit)
    assert await api.ok("GET", f"/entities/{entity_id}") == before


ENTITY_REFUSED = [
    pytest.param({"name": "", "entries": [entry("red")]}, "name", id="empty name"),
    pytest.param({"entries": [entry("red")]}, "name", id="missing name"),
    pytest.param({"name": "my color", "entries": [entry("red")]}, "name", id="name with space"),
    pytest.param({"name": "my.color", "entries": [entry("red")]}, "name", id="name with dot"),
    pytest.param({"name": "color\n", "entries": [entry("red")]}, "name", id="name with newline"),
    pytest.param({"name": "color"}, "entries", id="missing entries"),
    pytest.param({"name": "color", "entries": [entry("")]}, "entries[0].value", id="empty value"),
    pytest.param(
        {"name": "color", "entries": [{"value": "red", "synonyms": []}]},
        "entries[0].synonyms",
        id="zero synonyms",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red", "")]},
        "entries[0].synonyms[1].value",
        id="empty synonym",
    ),
    pytest.param(
        {"name": "color", "entries": [{"value": "red", "synonyms": [{"value": "crimson"}]}]},
        "entries[0].synonyms",
        id="synonyms without the entry's own value",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red"), entry("blue"), entry("red", "ruby")]},
        "entries[2].value",
        id="an entry value listed twice",
    ),
]


@pytest.mark.parametrize(("body", "path"), ENTITY_REFUSED)
async def test_an_entity_refuses_empty_missing_or_malformed_fields(
    api: Api, body: dict[str, Any], path: str
) -> None:
    refused(await api.post("/entities", body), path)
    assert await count(api, "/entities") == 0


async def test_an_entity_name_is_letters_digits_underscore_and_dash(api: Api) -> None:
    body = {"name": "Pizza_Size-2", "entries": []}
    entity_id = str((await api.ok("POST", "/entities", body))["id"])
    assert await api.ok("GET", f"/entities/{entity_id}") == {"id": entity_id, **body}


HOSTILE_ENTRIES = 2000
"""2,000 entries of 99 bad synonyms answered 400 in 0.3 s here; in issue 29 the synonyms
were each loaded by a nested schema and every error listed, and the request budget
answered 503 after 11.6 s: the 400 is the verdict, the time only a figure."""


async def send_large(api: Api, method: str, path: str, body: Any) -> Reply:
    """`body` sent as a stream, as a client sends megabytes."""
    headers = {"Authorization": f"Bearer {api.token}", "Content-Type": "application/json"}
    data = io.BytesIO(json.dumps(body).encode())
    async with api.client.request(method, path, data=data, headers=headers) as answer:
        return Reply(answer.status, await answer.json(), answer.headers)


async def test_an_entity_of_2000_entries_of_99_bad_synonyms_is_refused_within_the_budget(
    api: Api, request: pytest.FixtureRequest
) -> None:
    bad = {
        "name": "color",
        "entries": [
            {"value": f"v{i}", "synonyms": [{"value": ""}] * 99} for i in range(HOSTILE_ENTRIES)
        ],
    }
    entity_id = await api.create_entity("color", "red")
    before = await api.ok("GET", f"/entities/{entity_id}")
    for method, path in (("POST", "/entities"), ("PUT", f"/entities/{entity_id}")):
        started = time.perf_counter()
        reply = await send_large(api, method, path, bad)
        elapsed = time.perf_counter() - started
        refused(reply, "entries[0].synonyms[0].value", "between 1 and 1024")
        assert reply.body["status"]["errorDetails"].endswith("more errors)"), reply.body
        request.node.user_properties.append((f"{method} refused seconds", round(elapsed, 2)))
    assert await count(api, "/entities") == 1
    assert await api.ok("GET", f"/entities/{entity_id}") == before
