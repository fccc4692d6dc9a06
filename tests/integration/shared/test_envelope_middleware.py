"""The envelope middleware on its own: unexpected errors never leak a stack trace; an error
that declares its kind is answered as that kind."""

from aiohttp import web
from aiohttp.test_utils import TestClient

from shared.envelope import envelope_middleware
from shared.keys import STATUS_FIELD


def app_that_fails(status_field: str) -> web.Application:
    async def broken(request: web.Request) -> web.Response:
        raise RuntimeError("secret internals")

    app = web.Application(middlewares=[envelope_middleware])
    app[STATUS_FIELD] = status_field
    app.router.add_get("/broken", broken)
    return app


async def test_an_unexpected_error_is_a_500_with_the_request_id_and_no_trace(
    aiohttp_client: object,
) -> None:
    client: TestClient = await aiohttp_client(app_that_fails("errorType"))  # type: ignore[operator]
    async with client.get("/broken", headers={"X-Request-Id": "req-42"}) as response:
        text = await response.text()
        body = await response.json()
    assert response.status == 500
    assert response.headers["X-Request-Id"] == "req-42"
    assert body["status"] == {
        "code": 500,
        "errorType": "internal_error",
        "errorDetails": "internal server error",
        "requestId": "req-42",
    }
    assert "secret" not in text and "Traceback" not in text


async def test_the_connection_api_names_the_outcome_type(aiohttp_client: object) -> None:
    client: TestClient = await aiohttp_client(app_that_fails("type"))  # type: ignore[operator]
    async with client.get("/nowhere") as response:
        body = await response.json()
    assert body["status"]["type"] == "not_found"
    assert "errorType" not in body["status"]


class Invalid(Exception):
    """Declares its kind, as bot_api.domain.errors.Invalid does."""

    kind = "invalid"

    def __init__(self) -> None:
        super().__init__("triggers[1]: 'hi' is listed twice")
        self.path = ("triggers", 1)
        self.message = "'hi' is listed twice"


async def test_an_error_declaring_its_kind_is_answered_as_that_kind(
    aiohttp_client: object,
) -> None:
    async def refuses(request: web.Request) -> web.Response:
        raise Invalid

    app = web.Application(middlewares=[envelope_middleware])
    app[STATUS_FIELD] = "errorType"
    app.router.add_get("/refuses", refuses)
    client: TestClient = await aiohttp_client(app)  # type: ignore[operator]
    async with client.get("/refuses") as response:
        body = await response.json()
    assert response.status == 400
    assert body["status"] == {
        "code": 400,
        "errorType": "validation_error",
        "errorDetails": "triggers[1]: 'hi' is listed twice",
        "errors": {"triggers": {"1": ["'hi' is listed twice"]}},
    }
