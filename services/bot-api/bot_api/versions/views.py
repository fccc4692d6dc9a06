"""A story's versions (docs/versions.md): freeze, list, read, compare, restore, delete.
Publishing is a setting of the story (`PUT /stories/:id`, stories/views.py)."""

from typing import Any

from aiohttp import web

from bot_api.common.schemas import SuccessSchema
from bot_api.common.views import MANAGEMENT_STATUS_FIELD, account_of, success
from bot_api.versions.keys import VERSIONS
from bot_api.versions.repository import StoryVersion, VersionSummary
from bot_api.versions.schemas import (
    DiffQuerySchema,
    DiffSchema,
    VersionCreatedSchema,
    VersionCreateSchema,
    VersionSchema,
    VersionSummarySchema,
)
from shared.audit import Actor, actor_of
from shared.auditing import Audited
from shared.endpoints import PAGE, QUERY, TOTAL, endpoint, principal_of
from shared.envelope import envelope
from shared.timeutil import iso

routes = web.RouteTableDef()

VERSION = "/stories/{story}/versions/{version}"


@routes.post("/stories/{story}/versions")
@endpoint(
    audit=Audited("version.create", shows=("note",)),
    summary="Freeze the story as it is now into a new version",
    tag="versions",
    body=VersionCreateSchema(),
    response=VersionCreatedSchema(),
    errors=(404, 409),
)
async def create_version(request: web.Request, body: dict[str, Any]) -> Any:
    made = await request.app[VERSIONS].create(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        note=body["note"],
        by=actor_of(principal_of(request)),
    )
    return envelope(MANAGEMENT_STATUS_FIELD, 200, "success", id=made.id, number=made.number)


@routes.get("/stories/{story}/versions")
@endpoint(
    summary="List the story's versions, newest first",
    tag="versions",
    response=VersionSummarySchema(many=True),
    paged=True,
    errors=(404,),
)
async def list_versions(request: web.Request) -> Any:
    versions, request[TOTAL], published = await request.app[VERSIONS].list_versions(
        account_id=account_of(request), story_id=request.match_info["story"], page=request[PAGE]
    )
    return [_summary(version, published) for version in versions]


@routes.get(VERSION)
@endpoint(
    summary="Read a version: its note and the story's document as it was",
    tag="versions",
    response=VersionSchema(),
    errors=(404,),
)
async def read_version(request: web.Request) -> Any:
    account_id, story_id = account_of(request), request.match_info["story"]
    version: StoryVersion = await request.app[VERSIONS].read(
        account_id=account_id, story_id=story_id, version_id=request.match_info["version"]
    )
    published = await request.app[VERSIONS].published(account_id=account_id, story_id=story_id)
    return {**_summary(version.summary(), published), "document": version.document}


@routes.get(VERSION + "/diff")
@endpoint(
    summary="What changed from this version to another one or to the draft",
    tag="versions",
    query=DiffQuerySchema(),
    response=DiffSchema(),
    errors=(404,),
)
async def diff_version(request: web.Request) -> Any:
    version_id, to = request.match_info["version"], request[QUERY]["to"]
    found = await request.app[VERSIONS].diff(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        version_id=version_id,
        to=to,
    )
    return {
        "from": version_id,
        "to": to,
        "interactions": {
            "added": found.added,
            "removed": found.removed,
            "changed": found.changed,
        },
        "settings": found.settings,
        "entities": {
            "added": found.entities_added,
            "removed": found.entities_removed,
            "changed": found.entities_changed,
        },
    }


@routes.post(VERSION + "/restore")
@endpoint(
    audit=Audited("version.restore"),
    summary="Make the draft's settings, interactions and structure the version's",
    tag="versions",
    response=SuccessSchema(),
    errors=(404, 409),
)
async def restore_version(request: web.Request) -> Any:
    await request.app[VERSIONS].restore(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        version_id=request.match_info["version"],
    )
    return success()


@routes.delete(VERSION)
@endpoint(
    audit=Audited("version.delete"),
    summary="Delete a version that is not published",
    tag="versions",
    response=SuccessSchema(),
    errors=(404, 409),
)
async def delete_version(request: web.Request) -> Any:
    await request.app[VERSIONS].delete(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        version_id=request.match_info["version"],
    )
    return success()


def _summary(version: VersionSummary, published: str | None) -> dict[str, Any]:
    return {
        "id": version.id,
        "number": version.number,
        "note": version.note,
        "createdAt": iso(version.created_at),
        "published": version.id == published,
        "frozenBy": _actor(version.frozen_by),
        "publishedBy": _actor(version.published_by),
    }


def _actor(actor: Actor | None) -> dict[str, str] | None:
    return None if actor is None else actor.as_json()
