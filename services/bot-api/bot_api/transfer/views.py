"""A story as a file: `GET /stories/:id/export` and `POST /stories/import`
(docs/import-export.md)."""

import functools
import hashlib
import json
from typing import Any

from aiohttp import hdrs, web

from bot_api.common.views import MANAGEMENT_STATUS_FIELD, account_of
from bot_api.keys import CONFIG
from bot_api.transfer.keys import TRANSFER, TRANSFER_WORK
from bot_api.transfer.layout import as_yaml
from bot_api.transfer.report_schemas import ImportedSchema
from bot_api.transfer.schemas import (
    ExportQuerySchema,
    ImportQuerySchema,
    StoryDocumentSchema,
    exported_document,
    problems_error,
    read_upload,
)
from bot_api.transfer.service import ImportRefused
from bot_api.transfer.sources import MEDIA_TYPES
from shared.auditing import Audited, changed_nothing, note_of
from shared.endpoints import QUERY, Upload, endpoint
from shared.envelope import envelope
from shared.keys import IDEMPOTENCY

routes = web.RouteTableDef()
IMPORTED = ImportedSchema()


@routes.get("/stories/{story}/export")
@endpoint(
    summary="The story as a document: settings, interactions by key, entities, connections",
    tag="stories",
    query=ExportQuerySchema(),
    response=StoryDocumentSchema(),
    answers=("application/json", "application/yaml"),
    errors=(404,),
)
async def export_story(request: web.Request) -> web.Response:
    exported = await request.app[TRANSFER].export(
        account_id=account_of(request), story_id=request.match_info["story"]
    )
    as_yaml_text = request[QUERY]["format"] == "yaml"
    encode = as_yaml if as_yaml_text else _as_json
    text = await request.app[TRANSFER_WORK].run(
        account_of(request),
        lambda: encode(exported_document(exported)),
        limit=request.app[CONFIG].request_budget_seconds,
    )
    media_type = "application/yaml" if as_yaml_text else "application/json"
    return web.Response(text=text, content_type=media_type)


@routes.post("/stories/import")
@endpoint(
    audit=Audited("story.import", story_created=True),
    summary="Create a story from a story document, a Dialogflow ES agent or a Rasa project",
    tag="stories",
    body=StoryDocumentSchema(),
    uploads=MEDIA_TYPES,
    query=ImportQuerySchema(),
    response=ImportedSchema(),
    errors=(409,),
)
async def import_story(request: web.Request, upload: Upload) -> Any:
    account_id = account_of(request)
    transfer = request.app[TRANSFER]
    dry_run = request[QUERY]["dry_run"]
    name = request[QUERY].get("name", "")
    content_type = request.headers.get(hdrs.CONTENT_TYPE, "")

    async def create(new_id: str | None) -> dict[str, Any]:
        story = await request.app[TRANSFER_WORK].run(
            account_id,
            functools.partial(read_upload, upload.media_type, upload.data, content_type, name),
            limit=request.app[CONFIG].request_budget_seconds,
        )
        try:
            story_id, report = await transfer.import_story(
                account_id=account_id, upload=story, dry_run=dry_run, new_id=new_id
            )
        except ImportRefused as refused:
            raise problems_error(refused.problems) from None
        note = note_of(request)
        if dry_run:
            changed_nothing(request)
        elif note is not None:
            note.target = story_id
            note.shown = {"media": upload.media_type, **({"name": name} if name else {})}
        answer = envelope(MANAGEMENT_STATUS_FIELD, 200, "success", id=story_id, report=report)
        return dict(IMPORTED.dump(answer))

    sent = {
        "media": upload.media_type,
        "sha256": hashlib.sha256(upload.data).hexdigest(),
        "dryRun": dry_run,
        **({"name": name} if name else {}),
    }
    transfer.begin_import(account_id)
    try:
        answer = await request.app[IDEMPOTENCY].once(request, account_id, sent, create)
    finally:
        transfer.end_import(account_id)
    return web.json_response(answer)


@routes.route("*", "/stories/import")
async def import_only_posts(request: web.Request) -> web.Response:
    """`/stories/import` takes a POST only; without this, `/stories/{story}` would answer
    any other method as if `import` were a story's id."""
    raise web.HTTPMethodNotAllowed(request.method, ["POST"])


def _as_json(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False)
