"""/openapi.json is generated from the schemas that validate, so it cannot drift."""

from typing import Any

from aiohttp.test_utils import TestClient
from openapi_spec_validator import validate

PATH_PARAMETER_NAMES = {"story", "id"}
BROWSER_PAGES = ("/console", "/chat/", "/widget.")  # docs/console.md


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
        if route.method != "HEAD" and route.resource is not None
    }
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
    }
    assert schemas["CardResponse"]["properties"]["buttons"]["maxItems"] == 3
