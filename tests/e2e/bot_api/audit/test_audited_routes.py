"""Every route of both services that changes state declares its audit kind (docs/teams.md
"Audit log"): a POST, PUT, PATCH or DELETE without `audit=` fails here unless it is one
of the few listed below, each with why it leaves no record."""

from aiohttp import web

from bot_api.app import create_app as create_bot_api
from integrations_api.app import create_app as create_integrations_api
from shared.config import Config
from shared.endpoints import EndpointSpec

CHANGES = {"POST", "PUT", "PATCH", "DELETE"}
NOT_AUDITED = {
    ("POST", "/query"): "a user's turn of conversation, recorded in History, not a change",
    ("POST", "/v2/channels/{id}"): "a platform's webhook call: a user's turn, as /query",
    ("POST", "/console/sign-in/account"): "a person choosing the account to sign in to",
    ("POST", "/console/sign-out"): "a person ending their own console session",
}


def state_changing(app: web.Application) -> dict[tuple[str, str], EndpointSpec | None]:
    return {
        (route.method, route.resource.canonical): getattr(route.handler, "__endpoint__", None)
        for route in app.router.routes()
        if route.method in CHANGES and route.resource is not None
    }


def undeclared(app: web.Application) -> set[tuple[str, str]]:
    return {
        route
        for route, spec in state_changing(app).items()
        if route not in NOT_AUDITED and (spec is None or spec.audit is None)
    }


def test_every_state_changing_route_of_both_services_declares_its_audit_kind(
    config: Config,
) -> None:
    bot_api, integrations_api = create_bot_api(config), create_integrations_api(config)

    assert undeclared(bot_api) == set()
    assert undeclared(integrations_api) == set()
    routes = {**state_changing(bot_api), **state_changing(integrations_api)}
    assert set(NOT_AUDITED) <= set(routes)
    audited = {spec.audit.kind for spec in routes.values() if spec and spec.audit}
    assert {"story.update", "version.restore", "channel.update", "connection.delete"} <= audited
    assert len(routes) - len(NOT_AUDITED) >= 36  # as of issue 33


def test_a_route_without_a_declaration_fails_the_check(config: Config) -> None:
    app = create_bot_api(config)

    async def rename_everything(request: web.Request) -> web.Response:
        return web.json_response({})

    app.router.add_post("/stories/{story}/rename-everything", rename_everything)

    assert undeclared(app) == {("POST", "/stories/{story}/rename-everything")}
