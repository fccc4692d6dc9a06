"""Hostile bodies and headers get a 4xx in the envelope, cheaply, while /healthz keeps
answering (docs/reliability.md "HTTP input and the OpenAPI contract")."""

import io
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from pymongo import AsyncMongoClient

from bot_api.query.schemas import MAX_QUERY_BODY_BYTES
from shared import mongo
from shared.config import Config
from shared.errors import MAX_FIELD_ERRORS
from shared.json_body import MAX_MEMBERS
from support.api import Api, Reply, Tenant
from support.raw_http import exchange
from support.responsiveness import pinging

DEEP_LIST = b"[" * 1000 + b"]" * 1000
DEEP_OBJECT = b'{"name": ' + b'{"a": ' * 1000 + b"1" + b"}" * 1000 + b"}"
ANSWER_CAP_BYTES = 16 * 1024
JSON = "application/json"


def base_url(client: TestClient) -> str:
    return f"http://{client.host}:{client.port}"


async def send_large(api: Api, path: str, data: bytes) -> Reply:
    """POST a body of megabytes, streamed (aiohttp warns about large raw bytes)."""
    headers = {"Authorization": f"Bearer {api.token}", "Content-Type": "application/json"}
    async with api.client.post(path, data=io.BytesIO(data), headers=headers) as answer:
        return Reply(answer.status, await answer.json(), answer.headers)


async def send_chunked(api: Api, path: str, data: bytes) -> Reply:
    """POST `data` in chunks without a Content-Length (Transfer-Encoding: chunked)."""

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(data), 64 * 1024):
            yield data[start : start + 64 * 1024]

    headers = {"Authorization": f"Bearer {api.token}", "Content-Type": "application/json"}
    async with api.client.post(path, data=chunks(), headers=headers) as answer:
        return Reply(answer.status, await answer.json(), answer.headers)


async def json_endpoints(api: Api) -> list[tuple[str, str, Api]]:
    """(method, path, caller) of every endpoint that takes a JSON body, with real ids."""
    story = await api.create_story()
    interaction = await api.create_interaction(story, "Hours", userSays=["when are you open"])
    entity = await api.create_entity("size", "large")
    turn = {"query": "when are you open", "expect": {"interaction": "Hours"}}
    test = await api.ok("POST", f"/stories/{story}/tests", {"name": "hours", "turns": [turn]})
    text = {"title": "Hours", "text": "We open at nine."}
    document = await api.ok("POST", f"/stories/{story}/knowledge", text)
    ids = {
        "document": document["id"],
        "story": story,
        "id": interaction,
        "cluster": "0" * 16,
        "test": test["id"],
        "session": "s",
    }
    found = []
    for route in api.client.app.router.routes():  # type: ignore[union-attr]
        spec = getattr(route.handler, "__endpoint__", None)
        if spec is None or spec.body is None or route.resource is None:
            continue
        path = route.resource.canonical
        if path.startswith("/entities/"):
            path = path.replace("{id}", entity)
        found.append((route.method, path.format(**ids), api))
    return found


async def test_json_nested_1000_deep_is_a_400_on_every_json_endpoint(api: Api) -> None:
    endpoints = await json_endpoints(api)
    assert len(endpoints) >= 8
    for method, path, caller in endpoints:
        for body in (DEEP_LIST, DEEP_OBJECT):
            headers = {
                "Authorization": f"Bearer {caller.token}",
                "Content-Type": "application/json",
            }
            async with caller.client.request(method, path, data=body, headers=headers) as answer:
                reply = Reply(answer.status, await answer.json(), answer.headers)
            assert reply.status == 400, (method, path, reply.body)
            assert "nested deeper than" in reply.details


@pytest.mark.parametrize(
    ("body", "refusal"),
    [
        (b"[" * 50_000 + b"]" * 50_000, "the body: nested deeper than 32 levels"),
        (b"[" + b",".join([b"1"] * 1_000_000) + b"]", "the body: a list or mapping holds more"),
    ],
)
async def test_a_yaml_import_too_deep_or_too_large_is_a_400_and_the_service_answers_on(
    api: Api, body: bytes, refusal: str
) -> None:
    """The campaign's 50,000 nested lists (the process died of SIGSEGV) and 2 MB list of
    a million items (the transfer worker busy for 23 minutes)."""
    headers = {"Authorization": f"Bearer {api.token}", "Content-Type": "application/yaml"}
    async with api.client.post("/stories/import", data=io.BytesIO(body), headers=headers) as answer:
        reply = Reply(answer.status, await answer.json(), answer.headers)
    assert reply.error == (400, "bad_request"), reply.body
    assert reply.details.startswith(refusal)
    assert (await api.get("/stories")).status == 200


async def test_a_query_with_50k_bad_parameters_is_refused_early_and_briefly(
    alice: Tenant, api: Api, request: pytest.FixtureRequest
) -> None:
    """As many as the /query body limit holds (1 MiB)."""
    await api.create_story()
    parameters = {f"p{i}": [i] for i in range(50_000)}
    body = json.dumps({"sessionId": "s", "trigger": "welcome", "parameters": parameters})
    assert len(body) <= MAX_QUERY_BODY_BYTES
    async with pinging(base_url(api.client)) as probes:
        reply = await send_large(alice.public, "/query", body.encode())
    assert reply.error == (400, "bad_request")
    assert f"more than {MAX_MEMBERS} members" in reply.details
    assert len(json.dumps(reply.body)) < ANSWER_CAP_BYTES
    probes.assert_answered()
    request.node.user_properties.append(("healthz_p99_ms", round(probes.p99_ms, 1)))


async def test_a_query_of_half_a_million_numbers_is_decoded_beside_the_event_loop(
    alice: Tenant, api: Api, request: pytest.FixtureRequest
) -> None:
    """Within every shape limit, so the whole 1 MB is decoded (a quarter of a second of
    CPU) before the schema refuses the parameter; /healthz is answered meanwhile."""
    await api.create_story()
    numbers = [[n % 10 for n in range(2000)]] * 250
    query = {"sessionId": "s", "trigger": "welcome", "parameters": {"p": numbers}}
    body = json.dumps(query, separators=(",", ":"))
    assert len(body) <= MAX_QUERY_BODY_BYTES
    async with pinging(base_url(api.client)) as probes:
        reply = await send_large(alice.public, "/query", body.encode())
    assert reply.error == (400, "validation_error")
    assert "Must be a string, a number, a boolean or null" in reply.details
    probes.assert_answered()
    request.node.user_properties.append(("healthz_p99_ms", round(probes.p99_ms, 1)))


async def test_the_largest_entity_is_taken_and_validated_beside_the_event_loop(
    api: Api, request: pytest.FixtureRequest
) -> None:
    """2,000 entries of 99 synonyms: 3.2 MB and 202,002 arrays and objects, within every
    shape limit; marshmallow takes ~2 s to validate it, which /healthz does not wait for."""
    entries = [
        {
            "value": f"v{i}",
            "synonyms": [{"value": f"v{i}"}, *({"value": f"s{j}"} for j in range(98))],
        }
        for i in range(2000)
    ]
    body = json.dumps({"name": "size", "entries": entries}, separators=(",", ":")).encode()
    async with pinging(base_url(api.client)) as probes:
        reply = await send_large(api, "/entities", body)
    assert reply.status == 200, reply.body
    stored = await api.ok("GET", f"/entities/{reply.body['id']}")
    assert stored["entries"] == entries
    probes.assert_answered()
    request.node.user_properties.append(("healthz_p99_ms", round(probes.p99_ms, 1)))


async def test_a_query_body_is_taken_up_to_one_mebibyte(alice: Tenant, api: Api) -> None:
    await api.create_story()
    query = json.dumps({"sessionId": "s", "trigger": "welcome"}).encode()
    padding = MAX_QUERY_BODY_BYTES - len(query)
    largest = query[:-1] + b" " * padding + b"}"
    assert len(largest) == MAX_QUERY_BODY_BYTES
    assert (await send_large(alice.public, "/query", largest)).status == 200
    over = largest[:-1] + b" }"
    reply = await send_large(alice.public, "/query", over)
    assert reply.error == (413, "payload_too_large")
    assert f"at most {MAX_QUERY_BODY_BYTES} bytes" in reply.details
    chunked = await send_chunked(alice.public, "/query", over)  # no length to refuse first
    assert chunked.error == (413, "payload_too_large")
    assert f"at most {MAX_QUERY_BODY_BYTES} bytes" in chunked.details


async def test_an_interaction_with_400k_bad_phrases_is_refused_early_and_briefly(
    api: Api, request: pytest.FixtureRequest
) -> None:
    story = await api.create_story()
    body = json.dumps({"name": "x", "userSays": [[i] for i in range(400_000)]}).encode()
    async with pinging(base_url(api.client)) as probes:
        reply = await send_large(api, f"/stories/{story}/interactions", body)
    assert reply.error == (400, "bad_request")
    assert len(json.dumps(reply.body)) < ANSWER_CAP_BYTES
    probes.assert_answered()
    request.node.user_properties.append(("healthz_p99_ms", round(probes.p99_ms, 1)))


async def test_many_field_errors_are_listed_up_to_a_cap_and_counted(api: Api) -> None:
    """The entries are read up to the 20th bad one (issue 29: reading on is unbounded
    work), and the errors of those read are counted: two each here."""
    entries = [{"value": "", "synonyms": []} for _ in range(2000)]
    reply = await api.post("/entities", {"name": "size", "entries": entries})
    assert reply.error == (400, "validation_error")
    assert reply.details.startswith("entries[0]")
    assert reply.details.endswith(f"(and {2 * MAX_FIELD_ERRORS - MAX_FIELD_ERRORS} more errors)")
    listed = [
        m for entry in reply.body["status"]["errors"]["entries"].values() for m in entry.values()
    ]
    assert sum(len(messages) for messages in listed) == MAX_FIELD_ERRORS
    assert len(json.dumps(reply.body)) < ANSWER_CAP_BYTES


async def test_a_lone_surrogate_is_refused_and_a_failed_create_leaves_nothing(
    api: Api, config: Config
) -> None:
    reply = await api.send_raw(
        "/stories", b'{"name": "a\\ud800", "description": ""}', "application/json"
    )
    assert reply.error == (400, "bad_request")
    assert "lone surrogate" in reply.details
    client: AsyncMongoClient[Any] = mongo.open_client(config.mongodb_url)
    try:
        database = client[config.bot_database]
        assert await database["interactions"].count_documents({}) == 0
        assert await database["stories"].count_documents({}) == 0
    finally:
        await client.close()
    story = await api.create_story()
    for path, body in [
        (f"/stories/{story}", b'{"name": "x", "description": "\\udfff"}'),
        (f"/stories/{story}/interactions", b'{"name": "x", "userSays": ["a\\ud83d"]}'),
        ("/entities", b'{"name": "e", "entries": [{"value": "\\ud800", "synonyms": []}]}'),
    ]:
        method = "PUT" if path.count("/") == 2 else "POST"
        headers = {"Authorization": f"Bearer {api.token}", "Content-Type": "application/json"}
        async with api.client.request(method, path, data=body, headers=headers) as answer:
            assert answer.status == 400, (path, await answer.text())
    paired = await api.send_raw(
        "/stories", b'{"name": "pizza \\ud83c\\udf55", "description": ""}', "application/json"
    )
    assert paired.status == 200


@pytest.mark.parametrize(
    "body",
    [
        b'{"sessionId": NaN, "trigger": "welcome"}',
        b'{"sessionId": Infinity, "trigger": "welcome"}',
        b'{"sessionId": "s", "trigger": "welcome", "parameters": {"a": -Infinity}}',
        b'{"sessionId": "s", "trigger": "welcome", "parameters": {"a": 1e999}}',
        b'{"sessionId": "s", "trigger": "welcome", "parameters": {"a": 9223372036854775808}}',
        b'{"sessionId": 18446744073709551616, "trigger": "welcome"}',
    ],
)
async def test_numbers_that_cannot_be_stored_are_refused_on_query(
    alice: Tenant, api: Api, body: bytes
) -> None:
    await api.create_story()
    reply = await alice.public.send_raw("/query", body, "application/json")
    assert reply.error == (400, "bad_request"), reply.body
    largest = b'{"sessionId": "s", "trigger": "welcome", "parameters": {"a": 9223372036854775807}}'
    assert (await alice.public.send_raw("/query", largest, "application/json")).status == 200


async def test_a_non_utf8_authorization_header_is_a_401(bot_api: TestClient) -> None:
    request = b"GET /stories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\n\r\n"
    status, body = await exchange(bot_api.host, bot_api.port, request)
    assert status == 401
    assert body["status"]["errorType"] == "unauthorized"


async def test_a_charset_other_than_utf8_is_refused(api: Api) -> None:
    for charset in ("latin-1", "utf-16"):
        body = '{"name": "café", "description": ""}'.encode(charset)
        reply = await api.send_raw("/stories", body, f"application/json; charset={charset}")
        assert reply.error == (415, "bad_request")
        assert "UTF-8" in reply.details
    named = await api.send_raw(
        "/stories",
        '{"name": "café", "description": ""}'.encode(),
        "application/json; charset=UTF-8",
    )
    assert named.status == 200
    assert await api.ok("GET", "/stories") != []
