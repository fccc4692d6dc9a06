"""The v2 webhook-connection API (SPEC.md "Webhook connections")."""

from typing import Any

from aiohttp import web

from integrations_api.connections import CONNECTIONS, to_api
from integrations_api.messaging import publish_connection
from integrations_api.schemas import (
    ConnectionCreateSchema,
    ConnectionSchema,
    ConnectionSummarySchema,
    ConnectionUpdateSchema,
    CreatedSchema,
    SuccessSchema,
)
from integrations_api.stories import story_name
from shared.endpoints import endpoint, principal_of
from shared.envelope import envelope
from shared.errors import NotFound
from shared.service import CONFIG, NATS

CONNECTION_STATUS_FIELD = "type"
BASE = "/v2/integrations/webhook"

routes = web.RouteTableDef()


def _account(request: web.Request) -> str:
    return principal_of(request).account_id


def _success() -> dict[str, Any]:
    return envelope(CONNECTION_STATUS_FIELD, 200, "success")


@routes.get(BASE)
@endpoint(
    summary="List the webhook connections (without their credentials)",
    tag="webhook connections",
    response=ConnectionSummarySchema(many=True),
)
async def list_connections(request: web.Request) -> Any:
    return [to_api(d) for d in await request.app[CONNECTIONS].list(_account(request))]


@routes.post(BASE)
@endpoint(
    summary="Create a webhook connection for a story of the account",
    tag="webhook connections",
    body=ConnectionCreateSchema(),
    response=CreatedSchema(),
    status=201,
    errors=(503,),
)
async def create_connection(request: web.Request, body: dict[str, Any]) -> Any:
    name = await story_name(
        request.app[NATS], request.app[CONFIG].subjects, _account(request), body["storyId"]
    )
    document = await request.app[CONNECTIONS].insert(_account(request), name, body)
    await publish_connection(request.app, document)
    return {"id": str(document["_id"]), **envelope(CONNECTION_STATUS_FIELD, 201, "created")}


@routes.get(BASE + "/{id}")
@endpoint(
    summary="Read a webhook connection with its credentials",
    tag="webhook connections",
    response=ConnectionSchema(),
    errors=(404,),
)
async def read_connection(request: web.Request) -> Any:
    document = await request.app[CONNECTIONS].get(_account(request), request.match_info["id"])
    if document is None:
        raise NotFound(f"no webhook connection {request.match_info['id']}")
    return to_api(document)


@routes.put(BASE + "/{id}")
@endpoint(
    summary="Replace a webhook connection's configuration",
    tag="webhook connections",
    body=ConnectionUpdateSchema(),
    response=SuccessSchema(),
    errors=(404,),
)
async def update_connection(request: web.Request, body: dict[str, Any]) -> Any:
    connection_id = request.match_info["id"]
    document = await request.app[CONNECTIONS].replace(_account(request), connection_id, body)
    if document is None:
        raise NotFound(f"no webhook connection {connection_id}")
    await publish_connection(request.app, document)
    return _success()


@routes.delete(BASE + "/{id}")
@endpoint(
    summary="Delete a webhook connection",
    tag="webhook connections",
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_connection(request: web.Request) -> Any:
    connection_id = request.match_info["id"]
    document = await request.app[CONNECTIONS].delete(_account(request), connection_id)
    if document is None:
        raise NotFound(f"no webhook connection {connection_id}")
    await publish_connection(request.app, document, deleted=True)
    return _success()
