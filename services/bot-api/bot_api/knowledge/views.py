"""A story's documents and FAQ pairs: `/stories/:id/knowledge` (docs/knowledge.md)."""

import hashlib
from typing import Any

from aiohttp import web
from marshmallow import ValidationError

from bot_api.common.schemas import CreatedSchema, SuccessSchema
from bot_api.common.views import account_of, created_once, success
from bot_api.knowledge.faq import faq_of_csv
from bot_api.knowledge.keys import KNOWLEDGE
from bot_api.knowledge.schemas import (
    CSV_TYPE,
    UPLOAD_TYPES,
    DocumentSchema,
    FetchedSchema,
    KnowledgeWriteSchema,
    PassageSchema,
    UploadQuerySchema,
    passages_body,
)
from bot_api.knowledge.service import Source
from shared import json_body
from shared.auditing import Audited
from shared.endpoints import QUERY, Upload, endpoint
from shared.errors import ValidationFailed

routes = web.RouteTableDef()
WRITE = KnowledgeWriteSchema()


def source_of(request: web.Request, upload: Upload) -> Source:
    """What a write sends: the JSON body, FAQ pairs as CSV, or a file with its title in
    the query string."""
    if upload.media_type == "application/json":
        try:
            body = WRITE.load(json_body.parse(upload.data))
        except ValidationError as error:
            raise ValidationFailed.of_tree(error.messages_dict) from None
        if "faq" in body:
            return Source(body["title"], "", faq=tuple(body["faq"]), language=body.get("language"))
        if "url" in body:
            return Source(body["title"], "", url=body["url"], language=body.get("language"))
        return Source(
            body["title"], "text/plain", body["text"].encode(), language=body.get("language")
        )
    query = request[QUERY]
    title = query.get("title", "")
    if upload.media_type == CSV_TYPE:
        if not title:
            raise ValidationFailed.at(("title",), "name the FAQ pairs: ?title=")
        return Source(title, "", faq=faq_of_csv(upload.data), language=query.get("language"))
    return Source(title, upload.media_type, upload.data, language=query.get("language"))


@routes.get("/stories/{story}/knowledge")
@endpoint(
    summary="List the story's documents and FAQ pairs, oldest first",
    tag="knowledge",
    response=DocumentSchema(many=True),
    errors=(404,),
)
async def list_documents(request: web.Request) -> Any:
    return await request.app[KNOWLEDGE].documents_of(
        account_of(request), request.match_info["story"]
    )


@routes.post("/stories/{story}/knowledge")
@endpoint(
    audit=Audited("document.create"),
    summary="Add a document (a file, text or FAQ pairs) the story answers from",
    tag="knowledge",
    body=KnowledgeWriteSchema(),
    uploads=UPLOAD_TYPES,
    query=UploadQuerySchema(),
    response=CreatedSchema(),
    errors=(404, 409, 413, 415),
)
async def add_document(request: web.Request, upload: Upload) -> Any:
    story_id = request.match_info["story"]
    source = source_of(request, upload)

    async def create(account_id: str, new_id: str | None) -> str:
        return await request.app[KNOWLEDGE].add(account_id, story_id, source, new_id)

    sent = {
        "story": story_id,
        "media": upload.media_type,
        "sha256": hashlib.sha256(upload.data).hexdigest(),
        "query": request.query_string,
    }
    return await created_once(request, sent, create)


@routes.get("/stories/{story}/knowledge/{document}")
@endpoint(
    summary="Read a document: its source, passages and FAQ pairs",
    tag="knowledge",
    response=DocumentSchema(),
    errors=(404,),
)
async def get_document(request: web.Request) -> Any:
    return await request.app[KNOWLEDGE].get(
        account_of(request), request.match_info["story"], request.match_info["document"]
    )


@routes.get("/stories/{story}/knowledge/{document}/passages")
@endpoint(
    summary="The passages a document was cut into, in order",
    tag="knowledge",
    response=PassageSchema(many=True),
    errors=(404,),
)
async def document_passages(request: web.Request) -> Any:
    passages = await request.app[KNOWLEDGE].passages(
        account_of(request), request.match_info["story"], request.match_info["document"]
    )
    return web.json_response(passages_body(passages))


@routes.put("/stories/{story}/knowledge/{document}")
@endpoint(
    audit=Audited("document.replace"),
    summary="Replace a document with a new file, text or FAQ pairs",
    tag="knowledge",
    body=KnowledgeWriteSchema(),
    uploads=UPLOAD_TYPES,
    query=UploadQuerySchema(),
    response=SuccessSchema(),
    errors=(404, 409, 413, 415),
)
async def replace_document(request: web.Request, upload: Upload) -> Any:
    await request.app[KNOWLEDGE].replace(
        account_of(request),
        request.match_info["story"],
        request.match_info["document"],
        source_of(request, upload),
    )
    return success()


@routes.post("/stories/{story}/knowledge/{document}/fetch")
@endpoint(
    audit=Audited("document.fetch"),
    summary="Fetch a document's URL again; its passages change only if its content did",
    tag="knowledge",
    response=FetchedSchema(),
    errors=(400, 404, 409, 413, 415),
)
async def fetch_again(request: web.Request) -> Any:
    changed = await request.app[KNOWLEDGE].fetch_again(
        account_of(request), request.match_info["story"], request.match_info["document"]
    )
    return {**success(), "changed": changed}


@routes.delete("/stories/{story}/knowledge/{document}")
@endpoint(
    audit=Audited("document.delete"),
    summary="Delete a document and its passages",
    tag="knowledge",
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_document(request: web.Request) -> Any:
    await request.app[KNOWLEDGE].delete(
        account_of(request), request.match_info["story"], request.match_info["document"]
    )
    return success()
