"""/openapi.json is generated from the schemas that validate, so it cannot drift."""

from collections.abc import Iterator
from typing import Any

from aiohttp.test_utils import TestClient
from openapi_spec_validator import validate

PATH_PARAMETER_NAMES = {"story", "id"}
BROWSER_PAGES = ("/console", "/chat/", "/widget.", "/favicon.ico")  # docs/console.md


async def document(client: TestClient) -> dict[str, Any]:
    async with client.get("/openapi.json") as response:
        assert response.status == 200
        return dict(await response.json())


async def test_the_document_is_valid_openapi_3(bot_api: TestClient) -> None:
    validate(await document(bot_api))


async def test_every_route_is_documented(bot_api: TestClient) -> None:
    paths = (await document(bot_api))["paths"]
    routes = {
        (route.resource.canonical, route.method.lower())
        for route in bot_api.app.router.routes()
        if route.method not in {"HEAD", "*"} and route.resource is not None
    }  # a `*` route only refuses the methods a path does not take: no operation
    documented = {(path, method) for path, item in paths.items() for method in item}
    pages = {(path, method) for path, method in routes if path.startswith(BROWSER_PAGES)}
    assert ("/console/stories/{story}", "get") in pages  # the console's pages are not the API
    assert routes - pages == documented
    assert ("/stories/{story}/interactions/{id}", "post") in documented


async def test_limits_in_the_document_are_those_enforced(bot_api: TestClient) -> None:
    schemas = (await document(bot_api))["components"]["schemas"]
    interaction = schemas["InteractionWrite"]["properties"]
    assert interaction["userSays"]["maxItems"] == 99
    assert interaction["userSays"]["items"]["maxLength"] == 2048
    assert interaction["triggers"]["items"]["pattern"] == "^[A-Za-z0-9]+$"
    assert schemas["StoryCreate"]["properties"]["name"]["maxLength"] == 1024
    response_types = {
        ref["$ref"].rsplit("/", 1)[-1] for ref in interaction["responses"]["items"]["oneOf"]
    }
    assert response_types == {
        "TextResponse",
        "QuickReplyResponse",
        "ImageResponse",
        "CardResponse",
        "ButtonTemplateResponse",
        "HandoffResponse",
    }
    assert schemas["CardResponse"]["properties"]["buttons"]["maxItems"] == 3
    assert schemas["HandoffResponse"]["properties"]["connection"]["pattern"] == "^[0-9a-f]{24}$"
    assert schemas["HandoffMessage"]["properties"]["text"]["maxLength"] == 4096


def walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every object (schema or not) in the document."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def error_status_fields(document: dict[str, Any]) -> dict[tuple[str, str], set[str]]:
    """(path, method) -> the required fields of the status its error answers declare."""
    schemas = document["components"]["schemas"]
    found = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            required: set[str] = set()
            for code, answer in operation["responses"].items():
                if int(code) < 400:
                    continue
                error = schemas[answer["content"]["application/json"]["schema"]["$ref"][21:]]
                status = schemas[error["properties"]["status"]["$ref"][21:]]
                required |= set(status["required"])
            found[(path, method)] = required
    return found


async def test_error_answers_declare_the_status_field_the_service_answers_with(
    bot_api: TestClient,
) -> None:
    fields = error_status_fields(await document(bot_api))
    assert fields[("/query", "post")] == {"code", "type", "errorDetails"}
    assert fields[("/stories", "post")] == {"code", "errorType", "errorDetails"}
    management = {key: value for key, value in fields.items() if key[0] != "/query" and value}
    assert all("errorType" in value and "type" not in value for value in management.values())


async def test_unions_have_a_mapping_and_exactly_one_input_is_stated(bot_api: TestClient) -> None:
    spec = await document(bot_api)
    schemas = spec["components"]["schemas"]
    discriminators = [node["discriminator"] for node in walk(spec) if "discriminator" in node]
    assert discriminators
    for discriminator in discriminators:
        for kind, reference in discriminator["mapping"].items():
            assert schemas[reference.rsplit("/", 1)[-1]]["properties"]["type"]["enum"] == [kind]
    query = schemas["QueryRequest"]
    assert query["oneOf"] == [{"required": [name]} for name in ("query", "trigger", "goto")]
    assert query["properties"]["parameters"]["maxProperties"] == 99


async def test_no_length_of_a_string_is_put_on_an_object(bot_api: TestClient) -> None:
    for node in walk(await document(bot_api)):
        if node.get("type") == "object":
            assert not {"minLength", "maxLength"} & set(node), node


async def test_query_string_parameters_are_those_the_endpoint_reads(bot_api: TestClient) -> None:
    paths = (await document(bot_api))["paths"]
    listing = paths["/stories/{story}/conversations"]["get"]
    in_query = {p["name"]: p["schema"] for p in listing["parameters"] if p["in"] == "query"}
    assert set(in_query) == {
        *("from", "to", "outcome", "interaction", "text", "cursor", "limit"),
        *("source", "channel", "test", "language"),
    }
    assert in_query["test"]["type"] == "boolean"
    assert in_query["language"]["type"] == "string"
    analytics = paths["/stories/{story}/analytics"]["get"]
    assert {p["name"] for p in analytics["parameters"] if p["in"] == "query"} == {
        *("from", "to", "interval", "source", "channel")
    }
    assert in_query["limit"]["maximum"] == 100
    assert "400" in listing["responses"]
    export = paths["/stories/{story}/conversations/export"]["get"]
    formats = next(p for p in export["parameters"] if p["name"] == "format")
    assert formats["schema"]["enum"] == ["jsonl", "csv"]
