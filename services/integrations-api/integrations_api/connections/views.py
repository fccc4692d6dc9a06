"""The v2 webhook-connection API (docs/api.md "Webhook connections"): each handler parses,
calls its use case (service.py) and renders."""

import dataclasses
from typing import Any

from aiohttp import web

from integrations_api.common.schemas import CreatedSchema, SuccessSchema
from integrations_api.common.views import account_of, created, success
from integrations_api.connections import service
from integrations_api.connections.keys import CONNECTION_BACKENDS
from integrations_api.connections.repository import OPTIONAL_FIELDS
from integrations_api.connections.schemas import (
    ConnectionCreateSchema,
    ConnectionSchema,
    ConnectionSummarySchema,
    ConnectionUpdateSchema,
)
from shared.auditing import Audited, note_story
from shared.endpoints import PAGE, TOTAL, endpoint, principal_of
from shared.errors import NotFound
from shared.keys import CONFIG, IDEMPOTENCY
from shared.roles import SECRET_READERS, require_story
from shared.timeutil import iso

BASE = "/v2/integrations/webhook"
HIDDEN = "********"
"""A secret's value as a viewer reads it."""

routes = web.RouteTableDef()


def _backends(request: web.Request) -> service.ConnectionBackends:
    return request.app[CONNECTION_BACKENDS]


def _accounts_backends(request: web.Request) -> service.ConnectionBackends:
    """The backends with the caller's own connection quota (`accounts limits`)."""
    config = principal_of(request).limits.applied_to(request.app[CONFIG])
    return dataclasses.replace(_backends(request), quota=config.quota_connections)


def to_api(document: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(document["_id"]),
        "story": {"id": document["storyId"], "name": document["storyName"]},
        "name": document["name"],
        "url": document["url"],
        "error": document.get("error"),
        "createdAt": iso(document["createdAt"]),
        "updatedAt": iso(document["updatedAt"]),
        **{name: document.get(name) for name in OPTIONAL_FIELDS},
    }


@routes.get(BASE)
@endpoint(
    summary="List the webhook connections (without their credentials)",
    tag="webhook connections",
    response=ConnectionSummarySchema(many=True),
    paged=True,
)
async def list_connections(request: web.Request) -> Any:
    documents, request[TOTAL] = await service.list_connections(
        _backends(request),
        account_id=account_of(request),
        page=request[PAGE],
        only=principal_of(request).stories,
    )
    return [to_api(document) for document in documents]


@routes.post(BASE)
@endpoint(
    audit=Audited("connection.create", shows=("storyId", "name")),
    summary="Create a webhook connection for a story of the account",
    tag="webhook connections",
    body=ConnectionCreateSchema(),
    response=CreatedSchema(),
    status=201,
    errors=(409, 503),
)
async def create_connection(request: web.Request, body: dict[str, Any]) -> Any:
    account_id = account_of(request)
    require_story(principal_of(request), body["storyId"])

    async def create(new_id: str | None) -> dict[str, Any]:
        connection_id = await service.create_connection(
            _accounts_backends(request), account_id=account_id, fields=body, new_id=new_id
        )
        return created(connection_id)

    return await request.app[IDEMPOTENCY].once(request, account_id, body, create)


@routes.get(BASE + "/{id}")
@endpoint(
    summary="Read a webhook connection with its credentials (a viewer reads them hidden)",
    tag="webhook connections",
    response=ConnectionSchema(),
    errors=(404,),
)
async def read_connection(request: web.Request) -> Any:
    document = await _visible(request)
    if principal_of(request).role not in SECRET_READERS:
        return hide_secrets(to_api(document))
    return to_api(document)


async def _visible(request: web.Request) -> dict[str, Any]:
    """The connection of the path, if the caller's stories hold it (a 404 otherwise)."""
    connection_id = request.match_info["id"]
    document = await service.read_connection(
        _backends(request), account_id=account_of(request), connection_id=connection_id
    )
    if not principal_of(request).covers(document["storyId"]):
        raise NotFound(f"no webhook connection {connection_id}")
    return document


def hide_secrets(connection: dict[str, Any]) -> dict[str, Any]:
    """What a viewer reads: which credentials are set, never their values."""
    auth, headers = connection["auth"], connection["headers"]
    return {
        **connection,
        "token": None if connection["token"] is None else HIDDEN,
        "headers": None if headers is None else dict.fromkeys(headers, HIDDEN),
        "auth": None if auth is None else {"username": auth["username"], "password": HIDDEN},
    }


@routes.put(BASE + "/{id}")
@endpoint(
    audit=Audited("connection.update", shows=("name",)),
    summary="Replace a webhook connection's configuration",
    tag="webhook connections",
    body=ConnectionUpdateSchema(),
    response=SuccessSchema(),
    errors=(404,),
)
async def update_connection(request: web.Request, body: dict[str, Any]) -> Any:
    await _visible(request)
    story_id = await service.update_connection(
        _backends(request),
        account_id=account_of(request),
        connection_id=request.match_info["id"],
        fields=body,
    )
    note_story(request, story_id)
    return success()


@routes.delete(BASE + "/{id}")
@endpoint(
    audit=Audited("connection.delete"),
    summary="Delete a webhook connection",
    tag="webhook connections",
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_connection(request: web.Request) -> Any:
    await _visible(request)
    story_id = await service.delete_connection(
        _backends(request), account_id=account_of(request), connection_id=request.match_info["id"]
    )
    note_story(request, story_id)
    return success()
