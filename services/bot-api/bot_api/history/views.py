"""The history API (docs/history.md): a story's conversations page by page, one
transcript, an export, an erasure. Developer token only."""

import csv
import io
import json
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from bot_api.common.schemas import SuccessSchema
from bot_api.common.views import account_of, success
from bot_api.domain.history import TurnRecord
from bot_api.history.documents import turn_to_document
from bot_api.history.keys import HISTORY
from bot_api.history.repository import ConversationFilter
from bot_api.history.schemas import (
    ConversationPageSchema,
    ConversationsQuerySchema,
    ExportQuerySchema,
    TranscriptSchema,
)
from shared.auditing import Audited
from shared.endpoints import QUERY, endpoint
from shared.timeutil import iso

routes = web.RouteTableDef()

CONVERSATION = "/stories/{story}/conversations/{session:(?!export$)[^/]+}"
"""One conversation's path: any session id but `export`, the export's own path."""
NOT_SHOWN = frozenset({"accountId", "storyId", "sessionId", "vector", "expiresAt"})
INPUTS = frozenset({"query", "trigger", "goto"})

EXPORT_CHUNK = 200
"""Turns encoded per write of an export: other requests run between chunks."""
CSV_COLUMNS = (
    "at",
    "sessionId",
    "outcome",
    "input",
    "interactionId",
    "interactionName",
    "score",
    "threshold",
    "fulfillment",
    "webhook",
    "latencyMs",
    "language",
    "answeredIn",
)
"""The export's CSV header; a column added later goes last, so a reader by position keeps
reading the earlier ones (`language` and `answeredIn` are empty in a story of one
language, whose turns record neither)."""


@routes.get("/stories/{story}/conversations")
@endpoint(
    summary="List a story's conversations, newest first, a page at a time",
    tag="history",
    query=ConversationsQuerySchema(),
    response=ConversationPageSchema(),
    errors=(404,),
)
async def list_conversations(request: web.Request) -> Any:
    query = request[QUERY]
    page = await request.app[HISTORY].conversations(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        found=ConversationFilter(
            since=query.get("since"),
            until=query.get("until"),
            outcome=query.get("outcome"),
            interaction=query.get("interaction"),
            text=query.get("text"),
            source=query.get("source"),
            channel=query.get("channel"),
            language=query.get("language"),
            test=query.get("test"),
        ),
        cursor=query.get("cursor"),
        limit=query["limit"],
    )
    return {
        "items": [
            {
                "sessionId": c.session_id,
                "started": iso(c.started),
                "lastAt": iso(c.last_at),
                "turns": c.turns,
                "fallbacks": c.fallbacks,
            }
            for c in page.items
        ],
        "nextCursor": page.next_cursor,
    }


@routes.get("/stories/{story}/conversations/export")
@endpoint(
    summary="Export a story's turns of a time range as JSON lines or CSV, oldest first",
    tag="history",
    query=ExportQuerySchema(),
    errors=(404,),
)
async def export_conversations(request: web.Request) -> web.StreamResponse:
    query = request[QUERY]
    turns = await request.app[HISTORY].export(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        since=query.get("since"),
        until=query.get("until"),
    )
    csv_wanted = query["format"] == "csv"
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/csv; charset=utf-8"
            if csv_wanted
            else "application/x-ndjson; charset=utf-8",
            "Content-Disposition": f'attachment; filename="conversations.{query["format"]}"',
        }
    )
    await response.prepare(request)
    if csv_wanted:
        await response.write(_csv_rows([CSV_COLUMNS]))
    async for chunk in _chunks(turns):
        if csv_wanted:
            await response.write(_csv_rows([_csv_row(t) for t in chunk]))
        else:
            lines = (json.dumps({"sessionId": t.session_id, **turn_body(t)}) for t in chunk)
            await response.write("".join(f"{line}\n" for line in lines).encode())
    await response.write_eof()
    return response


@routes.get(CONVERSATION)
@endpoint(
    summary="Read one conversation's turns, oldest first, each with why it matched",
    tag="history",
    response=TranscriptSchema(),
    errors=(404,),
)
async def read_conversation(request: web.Request) -> Any:
    session_id = request.match_info["session"]
    turns = await request.app[HISTORY].transcript(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        session_id=session_id,
    )
    return {"sessionId": session_id, "turns": [turn_body(t) for t in turns]}


@routes.delete(CONVERSATION)
@endpoint(
    audit=Audited("conversation.erase"),
    summary="Erase one conversation: its turns and its live session's state "
    "(a person's right to erasure)",
    tag="history",
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_conversation(request: web.Request) -> Any:
    await request.app[HISTORY].delete(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        session_id=request.match_info["session"],
    )
    return success()


def turn_body(turn: TurnRecord) -> dict[str, Any]:
    """A turn as the API shows it: its document but the ids the path already names, the
    sentence vector and the expiry; times in ISO 8601."""
    document = turn_to_document(turn, turn.at)
    body = {
        name: value
        for name, value in document.items()
        if name not in NOT_SHOWN and not (name in INPUTS and value is None)
    }
    body["at"] = iso(turn.at)
    if turn.resolution is not None:
        body["resolution"] = {**body["resolution"], "at": iso(turn.resolution.at)}
    return body


async def _chunks(turns: AsyncIterator[TurnRecord]) -> AsyncIterator[list[TurnRecord]]:
    chunk: list[TurnRecord] = []
    async for turn in turns:
        chunk.append(turn)
        if len(chunk) == EXPORT_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _csv_row(turn: TurnRecord) -> list[Any]:
    answered = turn.interaction
    return [
        iso(turn.at),
        turn.session_id,
        turn.outcome,
        turn.query or turn.trigger or turn.goto or "",
        "" if answered is None else answered.id,
        "" if answered is None else answered.name,
        turn.score,
        turn.threshold,
        turn.fulfillment,
        turn.webhook or "",
        turn.latency_ms,
        turn.language or "",
        turn.answered_in or "",
    ]


def _csv_rows(rows: list[Any]) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue().encode()
