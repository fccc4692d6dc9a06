"""The misses inbox (docs/history.md): its clusters, and the actions on one."""

from typing import Any

from aiohttp import web

from bot_api.common.views import account_of
from bot_api.inbox.keys import INBOX
from bot_api.inbox.schemas import (
    AssignSchema,
    IgnoreSchema,
    InboxQuerySchema,
    InboxSchema,
    NewInteractionSchema,
    ReopenedSchema,
    ReopenSchema,
    ResolvedSchema,
)
from shared.auditing import Audited
from shared.endpoints import QUERY, endpoint

routes = web.RouteTableDef()


@routes.get("/stories/{story}/inbox")
@endpoint(
    summary="The story's unresolved misses grouped by meaning, the biggest cluster first",
    tag="inbox",
    query=InboxQuerySchema(),
    response=InboxSchema(),
    errors=(404,),
)
async def read_inbox(request: web.Request) -> Any:
    return await request.app[INBOX].clusters(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        language=request[QUERY].get("language"),
    )


@routes.post("/stories/{story}/inbox/{cluster}/assign")
@endpoint(
    audit=Audited("inbox.assign"),
    summary="Add a cluster's messages as user-says phrases of an interaction",
    tag="inbox",
    body=AssignSchema(),
    response=ResolvedSchema(),
    errors=(404, 409),
)
async def assign_cluster(request: web.Request, body: dict[str, Any]) -> Any:
    return await request.app[INBOX].assign(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        cluster_id=request.match_info["cluster"],
        interaction_id=body["interaction"],
        messages=body.get("messages"),
    )


@routes.post("/stories/{story}/inbox/{cluster}/interaction")
@endpoint(
    audit=Audited("inbox.interaction"),
    summary="Create a root interaction whose phrases are a cluster's messages",
    tag="inbox",
    body=NewInteractionSchema(),
    response=ResolvedSchema(),
    errors=(404, 409),
)
async def cluster_interaction(request: web.Request, body: dict[str, Any]) -> Any:
    return await request.app[INBOX].create_interaction(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        cluster_id=request.match_info["cluster"],
        name=body["name"],
        messages=body.get("messages"),
        responses=tuple(body.get("responses", ())),
    )


@routes.post("/stories/{story}/inbox/{cluster}/ignore")
@endpoint(
    audit=Audited("inbox.ignore"),
    summary="Ignore a cluster's messages: the same texts never come back to the inbox",
    tag="inbox",
    body=IgnoreSchema(),
    response=ResolvedSchema(),
    errors=(404,),
)
async def ignore_cluster(request: web.Request, body: dict[str, Any]) -> Any:
    return await request.app[INBOX].ignore(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        cluster_id=request.match_info["cluster"],
        messages=body.get("messages"),
    )


@routes.post("/stories/{story}/inbox/reopen")
@endpoint(
    audit=Audited("inbox.reopen"),
    summary="Undo an inbox action: these turns back in the inbox, their texts not ignored",
    tag="inbox",
    body=ReopenSchema(),
    response=ReopenedSchema(),
    errors=(404,),
)
async def reopen(request: web.Request, body: dict[str, Any]) -> Any:
    return await request.app[INBOX].reopen(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        turn_ids=body["turns"],
    )
