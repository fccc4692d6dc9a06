"""Every failure answers in the JSON envelope with its HTTP status (docs/api.md)."""

import dataclasses

from aiohttp.test_utils import TestClient

from bot_api.app import create_app
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api


async def test_malformed_json_is_a_bad_request(api: Api) -> None:
    for data in (b"", b'{"name": "x",', b"\xff\xfe"):
        reply = await api.send_raw("/stories", data, "application/json")
        assert reply.error == (400, "bad_request"), data
        assert reply.details.startswith("malformed JSON body")


async def test_a_body_that_is_not_json_is_unsupported(api: Api) -> None:
    for content_type in ("text/plain", "application/x-www-form-urlencoded"):
        reply = await api.send_raw("/stories", b'{"name": "x"}', content_type)
        assert reply.error == (415, "bad_request")
        assert "application/json" in reply.details


async def test_a_json_value_of_the_wrong_shape_is_a_validation_error(api: Api) -> None:
    for data in (b"[]", b'"story"', b"42", b"null"):
        reply = await api.send_raw("/stories", data, "application/json")
        assert reply.error == (400, "validation_error"), data
    reply = await api.post("/stories", {"name": "x", "description": "", "colour": "red"})
    assert reply.error == (400, "validation_error")
    assert reply.body["status"]["errors"] == {"colour": ["Unknown field."]}
    assert await api.ok("GET", "/stories") == []


async def test_a_body_over_the_size_limit_is_refused_and_nothing_is_stored(
    aiohttp_client: object, config: Config, accounts: AccountRepository
) -> None:
    small = dataclasses.replace(config, max_body_bytes=2048)
    client: TestClient = await aiohttp_client(create_app(small))  # type: ignore[operator]
    api = Api(client, (await accounts.create("alice")).developer_token)
    reply = await api.post("/stories", {"name": "x", "description": "d" * 2100})
    assert reply.error == (413, "payload_too_large")
    assert await api.ok("GET", "/stories") == []
    await api.ok("POST", "/stories", {"name": "x", "description": "d" * 1900})


async def test_unknown_routes_and_methods_answer_in_the_envelope(api: Api) -> None:
    reply = await api.get("/nowhere")
    assert reply.error == (404, "not_found")
    reply = await api.call("PATCH", "/stories")
    assert reply.error == (405, "method_not_allowed")
    assert set(reply.headers["Allow"].split(",")) == {"GET", "HEAD", "POST"}
