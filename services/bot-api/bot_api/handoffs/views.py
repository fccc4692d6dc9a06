"""Handoffs (docs/api.md "Handoffs"): the person's side of a conversation handed
over: the open ones, a message to the user, giving the conversation back."""

from typing import Any

from aiohttp import web

from bot_api.common.schemas import SuccessSchema
from bot_api.common.views import account_of, success
from bot_api.handoffs.keys import HANDOFFS
from bot_api.handoffs.schemas import HandoffMessageSchema, OpenHandoffSchema
from shared.auditing import Audited
from shared.endpoints import PAGE, TOTAL, endpoint
from shared.timeutil import iso

routes = web.RouteTableDef()

HANDOFF = "/stories/{story}/handoffs/{session}"


@routes.get("/stories/{story}/handoffs")
@endpoint(
    summary="List the story's conversations a person has, oldest handoff first",
    tag="handoffs",
    response=OpenHandoffSchema(many=True),
    paged=True,
    errors=(404,),
)
async def list_handoffs(request: web.Request) -> Any:
    items, request[TOTAL] = await request.app[HANDOFFS].list_open(
        account_id=account_of(request), story_id=request.match_info["story"], page=request[PAGE]
    )
    return [
        {
            "sessionId": item.session_id,
            "connection": item.handoff.connection,
            "since": iso(item.handoff.since),
            "lastMessageAt": iso(item.handoff.last_message_at),
        }
        for item in items
    ]


@routes.post(HANDOFF + "/messages")
@endpoint(
    audit=Audited("handoff.message"),
    summary="Send the user a person's message (through the session's channel)",
    tag="handoffs",
    body=HandoffMessageSchema(),
    response=SuccessSchema(),
    errors=(404, 409),
)
async def send_message(request: web.Request, body: dict[str, Any]) -> Any:
    await request.app[HANDOFFS].send(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        session_id=request.match_info["session"],
        text=body["text"],
    )
    return success()


@routes.delete(HANDOFF)
@endpoint(
    audit=Audited("handoff.give-back"),
    summary="Give the conversation back to the bot",
    tag="handoffs",
    response=SuccessSchema(),
    errors=(404, 409),
)
async def give_back(request: web.Request) -> Any:
    await request.app[HANDOFFS].give_back(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        session_id=request.match_info["session"],
    )
    return success()
