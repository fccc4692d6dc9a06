"""Handoffs (docs/api.md "Handoffs", docs/teams.md "The agent desk"): the person's side
of a conversation handed over: the open ones, one conversation's transcript, the live
stream of new lines (Server-Sent Events), a message to the user, taking the conversation
over, giving it back."""

import asyncio
import json
from typing import Any

from aiohttp import web

from bot_api.common.schemas import SuccessSchema
from bot_api.common.views import success
from bot_api.domain.desk import DeskEntry, channel_title, user_label
from bot_api.domain.history import Person
from bot_api.engine.turn import HandedOver
from bot_api.handoffs.keys import HANDOFFS
from bot_api.handoffs.live import DeskNews, DeskStream
from bot_api.handoffs.schemas import (
    DeskConversationSchema,
    DeskNewsSchema,
    HandoffMessageSchema,
    OpenHandoffSchema,
)
from bot_api.keys import CONFIG
from shared.auditing import Audited
from shared.endpoints import PAGE, TOTAL, client_of, endpoint, principal_of
from shared.timeutil import iso

routes = web.RouteTableDef()

HANDOFF = "/stories/{story}/handoffs/{session:(?!events$)[^/]+}"
"""One handoff's path: any session id but `events`, the stream's own path."""
STREAM_SECONDS = 600.0
"""How long one stream lasts: the page opens another at once (the `retry` it was
told), so a stream's request is bounded like every other."""
RETRY_MS = 2000


def person_body(person: Person | None) -> dict[str, str] | None:
    return None if person is None else {"name": person.name, "role": person.role}


def handoff_body(session_id: str, handoff: HandedOver) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "connection": handoff.connection,
        "since": iso(handoff.since),
        "lastMessageAt": iso(handoff.last_message_at),
        "userName": user_label(session_id, handoff.user_name, handoff.source),
        "channel": channel_title(handoff.source),
        "takenBy": person_body(handoff.taken_by),
    }


def entry_body(entry: DeskEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "at": iso(entry.at),
        "speaker": entry.speaker,
        "text": entry.text,
        "person": person_body(entry.person),
    }


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
        principal=principal_of(request), story_id=request.match_info["story"], page=request[PAGE]
    )
    return [handoff_body(item.session_id, item.handoff) for item in items]


@routes.get("/stories/{story}/handoffs/events")
@endpoint(
    summary="Stream the new lines of the story's handed-over conversations (Server-Sent "
    "Events: a `desk` event each, a comment as heartbeat)",
    tag="handoffs",
    response=DeskNewsSchema(),
    answers=("text/event-stream",),
    errors=(404, 429),
    budget_seconds=STREAM_SECONDS + 30,
)
async def desk_events(request: web.Request) -> web.StreamResponse:
    stream = await request.app[HANDOFFS].stream(
        principal=principal_of(request),
        story_id=request.match_info["story"],
        client=client_of(request),
    )
    try:
        return await _send_events(request, stream)
    finally:
        stream.close()


async def _send_events(request: web.Request, stream: DeskStream) -> web.StreamResponse:
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",  # a proxy passes each event on at once
        }
    )
    await response.prepare(request)
    await response.write(f"retry: {RETRY_MS}\n\n".encode())
    heartbeat = request.app[CONFIG].desk_heartbeat_seconds
    loop = asyncio.get_running_loop()
    ends = loop.time() + STREAM_SECONDS
    try:
        while not stream.ended and (left := ends - loop.time()) > 0:
            news = await stream.next(min(heartbeat, left))
            if not news and not stream.ended:
                await response.write(b": heartbeat\n\n")
            for one in news:
                await response.write(event(one))
    except ConnectionResetError:
        pass  # the page went away: its stream closes
    return response


def event(news: DeskNews) -> bytes:
    data = {
        "sessionId": news.session_id,
        "entry": None if news.entry is None else entry_body(news.entry),
        "listChanged": news.list_changed,
    }
    return f"event: desk\ndata: {json.dumps(data)}\n\n".encode()


@routes.get(HANDOFF)
@endpoint(
    summary="Read one conversation as the desk shows it: its open handoff and transcript",
    tag="handoffs",
    response=DeskConversationSchema(),
    errors=(404,),
)
async def read_conversation(request: web.Request) -> Any:
    session_id = request.match_info["session"]
    found = await request.app[HANDOFFS].conversation(
        principal=principal_of(request), story_id=request.match_info["story"], session_id=session_id
    )
    return {
        "sessionId": session_id,
        "handoff": None if found.handoff is None else handoff_body(session_id, found.handoff),
        "transcript": [entry_body(entry) for entry in found.entries],
    }


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
        principal=principal_of(request),
        story_id=request.match_info["story"],
        session_id=request.match_info["session"],
        text=body["text"],
    )
    return success()


@routes.post(HANDOFF + "/take-over")
@endpoint(
    audit=Audited("handoff.take-over"),
    summary="Take the conversation over: the list and the desks say who has it",
    tag="handoffs",
    response=SuccessSchema(),
    errors=(404, 409),
)
async def take_over(request: web.Request) -> Any:
    await request.app[HANDOFFS].take_over(
        principal=principal_of(request),
        story_id=request.match_info["story"],
        session_id=request.match_info["session"],
    )
    return success()


@routes.delete(HANDOFF)
@endpoint(
    audit=Audited("handoff.give-back"),
    summary="Give the conversation back to the bot (the user is told so)",
    tag="handoffs",
    response=SuccessSchema(),
    errors=(404, 409),
)
async def give_back(request: web.Request) -> Any:
    await request.app[HANDOFFS].give_back(
        principal=principal_of(request),
        story_id=request.match_info["story"],
        session_id=request.match_info["session"],
    )
    return success()
