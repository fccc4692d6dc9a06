"""The channel API `/v2/integrations/channels` and the platforms' own entry
`/v2/channels/:id` (docs/channels.md): each handler parses, calls its use case
(channels/service.py, channels/conversations.py) and renders."""

import dataclasses
import time
from typing import Any

from aiohttp import web
from marshmallow import fields

from integrations_api.channels import conversations, service
from integrations_api.channels.keys import CHANNEL_BACKENDS, SIGNING_FAILURES
from integrations_api.channels.platform import Request
from integrations_api.channels.repository import Channel, ChannelFields, channel_id_from
from integrations_api.channels.schemas import (
    ChannelCreateSchema,
    ChannelSchema,
    ChannelUpdateSchema,
)
from integrations_api.common.schemas import CreatedSchema, SuccessSchema
from integrations_api.common.views import account_of, created, success
from shared.auditing import Audited, note_story
from shared.endpoints import PAGE, TOTAL, Upload, client_of, endpoint, principal_of
from shared.errors import NotFound, Unauthorized
from shared.keys import CONFIG, IDEMPOTENCY, RATE_LIMITS
from shared.roles import require_story
from shared.timeutil import iso

BASE = "/v2/integrations/channels"
INBOUND = "/v2/channels/{id}"
INBOUND_BYTES = 1024 * 1024
"""A platform's call is one event: a Telegram message is at most 4096 characters
(with its entities, some tens of KiB), a Slack event payload a few KiB; 1 MiB leaves
room for any of them and refuses bigger bodies before they are read."""
INBOUND_MEDIA_TYPES = ("application/json", "application/x-www-form-urlencoded")
"""JSON, and the form Slack posts a button click in."""

routes = web.RouteTableDef()


def _backends(request: web.Request) -> service.ChannelBackends:
    return request.app[CHANNEL_BACKENDS]


def _base_url(request: web.Request) -> str:
    """`INTEGRATIONS_PUBLIC_URL`, else the origin the API was called on."""
    return request.app[CONFIG].integrations_public_url or f"{request.scheme}://{request.host}"


def _fields(body: dict[str, Any]) -> ChannelFields:
    return ChannelFields(name=body["name"], credentials=body.get("credentials"))


def to_api(channel: Channel, base_url: str) -> dict[str, Any]:
    """A channel as read: never its credentials."""
    return {
        "id": channel.id,
        "story": {"id": channel.story_id, "name": channel.story_name},
        "type": channel.type,
        "name": channel.name,
        "inboundUrl": service.inbound_url(base_url, channel.id),
        "status": channel.status,
        "error": channel.error,
        "createdAt": iso(channel.created_at),
        "updatedAt": iso(channel.updated_at),
    }


@routes.get(BASE)
@endpoint(
    summary="List the channels (never their credentials)",
    tag="channels",
    response=ChannelSchema(many=True),
    paged=True,
)
async def list_channels(request: web.Request) -> Any:
    channels, request[TOTAL] = await service.list_channels(
        _backends(request),
        account_id=account_of(request),
        page=request[PAGE],
        only=principal_of(request).stories,
    )
    return [to_api(channel, _base_url(request)) for channel in channels]


@routes.post(BASE)
@endpoint(
    audit=Audited("channel.create", shows=("storyId", "type", "name")),
    summary="Connect a story to a messaging platform (Telegram registers its webhook)",
    tag="channels",
    body=ChannelCreateSchema(),
    response=CreatedSchema(),
    status=201,
    errors=(409, 503),
)
async def create_channel(request: web.Request, body: dict[str, Any]) -> Any:
    account_id = account_of(request)
    require_story(principal_of(request), body["storyId"])
    config = principal_of(request).limits.applied_to(request.app[CONFIG])
    backends = dataclasses.replace(_backends(request), quota=config.quota_channels)

    async def create(new_id: str | None) -> dict[str, Any]:
        channel_id = await service.create_channel(
            backends,
            account_id=account_id,
            story_id=body["storyId"],
            channel_type=body["type"],
            fields=_fields(body),
            base_url=_base_url(request),
            new_id=new_id,
        )
        return created(channel_id)

    return await request.app[IDEMPOTENCY].once(
        request, account_id, body, create, id_from=channel_id_from
    )


@routes.get(BASE + "/{id}")
@endpoint(
    summary="Read a channel (never its credentials)",
    tag="channels",
    response=ChannelSchema(),
    errors=(404,),
)
async def read_channel(request: web.Request) -> Any:
    return to_api(await _visible(request), _base_url(request))


async def _visible(request: web.Request) -> Channel:
    """The channel of the path, if the caller's stories hold it (a 404 otherwise)."""
    channel_id = request.match_info["id"]
    channel = await service.read_channel(
        _backends(request), account_id=account_of(request), channel_id=channel_id
    )
    if not principal_of(request).covers(channel.story_id):
        raise NotFound(f"no channel {channel_id}")
    return channel


@routes.put(BASE + "/{id}")
@endpoint(
    audit=Audited("channel.update", shows=("name",)),
    summary="Rename a channel or replace its credentials, and register its webhook again",
    tag="channels",
    body=ChannelUpdateSchema(),
    response=SuccessSchema(),
    errors=(404,),
)
async def update_channel(request: web.Request, body: dict[str, Any]) -> Any:
    await _visible(request)
    story_id = await service.update_channel(
        _backends(request),
        account_id=account_of(request),
        channel_id=request.match_info["id"],
        fields=_fields(body),
        base_url=_base_url(request),
    )
    note_story(request, story_id)
    return success()


@routes.delete(BASE + "/{id}")
@endpoint(
    audit=Audited("channel.delete"),
    summary="Delete a channel (the platform's webhook is left to the platform)",
    tag="channels",
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_channel(request: web.Request) -> Any:
    await _visible(request)
    story_id = await service.delete_channel(
        _backends(request), account_id=account_of(request), channel_id=request.match_info["id"]
    )
    note_story(request, story_id)
    return success()


@routes.post(INBOUND)
@endpoint(
    summary="A messaging platform's webhook call (authenticated the platform's way)",
    tag="channels",
    auth=None,
    body=fields.Dict(metadata={"description": "The platform's event, as it sends it"}),
    uploads=INBOUND_MEDIA_TYPES,
    body_bytes=INBOUND_BYTES,
    errors=(400, 401, 413, 415, 429),
)
async def inbound_call(request: web.Request, upload: Upload) -> web.StreamResponse:
    return await _received(request, upload.data)


@routes.get(INBOUND)
@endpoint(
    summary="A messaging platform's verification call (Meta's hub.challenge)",
    tag="channels",
    auth=None,
    errors=(401, 429),
)
async def inbound_verification(request: web.Request) -> web.StreamResponse:
    return await _received(request, b"")


async def _received(request: web.Request, body: bytes) -> web.StreamResponse:
    """Calls to an id that failed its platform's authentication too often from an
    address are refused (429) before any look-up (channels/failures.py). A failed call,
    whether its id is a channel's or not, also counts against its address, whose limit
    is checked only once a call failed: a stranger trying ids is refused whichever they
    try, and the platforms' good calls from their shared addresses never are. A call to
    no channel is answered, and counted, exactly as a call a channel refuses."""
    client = client_of(request)
    channel_id = request.match_info["id"]
    failures = request.app[SIGNING_FAILURES]
    failures.check(channel_id, client)
    call = Request(
        method=request.method,
        headers={name.lower(): value for name, value in request.headers.items()},
        query=dict(request.query),
        body=body,
    )
    try:
        reply = await conversations.receive(
            _backends(request), channel_id=channel_id, request=call, now=time.time()
        )
    except Unauthorized:
        failures.failed(channel_id, client)
        limits = request.app[RATE_LIMITS]
        limits.check_authentication(client)
        limits.authentication_failed(client)
        raise
    if reply is None:
        return web.json_response({"ok": True})
    return web.Response(status=reply.status, text=reply.text, content_type=reply.content_type)
