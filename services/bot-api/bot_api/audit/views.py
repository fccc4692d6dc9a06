"""`GET /audit` and its export (docs/teams.md "Audit log"): the account's changes,
newest first, cursor-paged; the export streams them as JSON lines."""

import json
from typing import Any

from aiohttp import web

from bot_api.audit.schemas import (
    AuditExportQuerySchema,
    AuditItemSchema,
    AuditPageSchema,
    AuditQuerySchema,
)
from bot_api.common.views import account_of
from shared.audit import AuditFilter, AuditRecord
from shared.auditing import AUDIT_LOG
from shared.endpoints import QUERY, endpoint
from shared.timeutil import iso

routes = web.RouteTableDef()

JSON_LINES = "application/x-ndjson"
ITEM = AuditItemSchema()


def _filter(query: dict[str, Any]) -> AuditFilter:
    return AuditFilter(
        member=query.get("member"),
        story=query.get("story"),
        kind=query.get("kind"),
        since=query.get("from_"),
        until=query.get("to"),
    )


def as_json(record: AuditRecord) -> dict[str, Any]:
    item: dict[str, Any] = {
        "at": iso(record.at),
        "actor": record.actor.as_json(),
        "kind": record.kind,
        "target": record.target,
        "summary": record.summary,
        "confirmed": record.confirmed,
    }
    if record.story_id is not None:
        item["storyId"] = record.story_id
    return item


@routes.get("/audit")
@endpoint(
    summary="The account's audit log: who changed what, newest first",
    tag="audit",
    query=AuditQuerySchema(),
    response=AuditPageSchema(),
    errors=(400,),
)
async def list_audit(request: web.Request) -> Any:
    query = request[QUERY]
    records, following = await request.app[AUDIT_LOG].page(
        account_of(request), _filter(query), query.get("cursor"), query["limit"]
    )
    return {"items": [as_json(record) for record in records], "next": following}


@routes.get("/audit/export")
@endpoint(
    summary="The account's audit log as JSON lines, newest first (10,000 records a call)",
    tag="audit",
    query=AuditExportQuerySchema(),
    response=AuditItemSchema(),
    answers=(JSON_LINES,),
    errors=(400,),
)
async def export_audit(request: web.Request) -> web.StreamResponse:
    """One record a line; when more are left than one export streams, the last line is
    `{"next": cursor}`, from which the next export goes on."""
    query = request[QUERY]
    response = web.StreamResponse(
        headers={
            "Content-Type": JSON_LINES,
            "Content-Disposition": 'attachment; filename="audit.jsonl"',
        }
    )
    records = request.app[AUDIT_LOG].export(
        account_of(request), _filter(query), query.get("cursor")
    )
    started = False
    async for record in records:
        if not started:
            await response.prepare(request)
            started = True
        line = {"next": record} if isinstance(record, str) else ITEM.dump(as_json(record))
        await response.write(json.dumps(line).encode() + b"\n")
    if not started:
        await response.prepare(request)
    await response.write_eof()
    return response
