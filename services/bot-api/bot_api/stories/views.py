from dataclasses import asdict
from typing import Any

from aiohttp import web

from bot_api.common.schemas import CreatedSchema, SuccessSchema
from bot_api.common.views import account_of, created_once, success
from bot_api.stories.keys import STORIES
from bot_api.stories.schemas import (
    StoryCreateSchema,
    StoryDetailSchema,
    StorySummarySchema,
    StoryUpdateSchema,
)
from shared.audit import actor_of
from shared.auditing import Audited, note_of
from shared.endpoints import PAGE, TOTAL, endpoint, principal_of
from shared.roles import PUBLISHING

routes = web.RouteTableDef()


@routes.get("/stories")
@endpoint(
    summary="List the stories, oldest first",
    tag="stories",
    response=StorySummarySchema(many=True),
    paged=True,
)
async def list_stories(request: web.Request) -> Any:
    stories, request[TOTAL] = await request.app[STORIES].list_stories(
        account_id=account_of(request), page=request[PAGE], only=principal_of(request).stories
    )
    return stories


@routes.post("/stories")
@endpoint(
    audit=Audited("story.create", shows=("name", "description", "settings.*"), story_created=True),
    summary="Create a story with its welcome and fallback interactions",
    tag="stories",
    body=StoryCreateSchema(),
    response=CreatedSchema(),
    errors=(409,),
)
async def create_story(request: web.Request, body: dict[str, Any]) -> Any:
    async def create(account_id: str, new_id: str | None) -> str:
        return await request.app[STORIES].create(account_id=account_id, new_id=new_id, **body)

    return await created_once(request, body, create)


@routes.get("/stories/{story}")
@endpoint(
    summary="Read a story with its order, tree and context summaries",
    tag="stories",
    response=StoryDetailSchema(),
    errors=(404,),
)
async def read_story(request: web.Request) -> Any:
    story_id = request.match_info["story"]
    return await request.app[STORIES].read(account_id=account_of(request), story_id=story_id)


@routes.put("/stories/{story}")
@endpoint(
    audit=Audited("story.update", shows=("name", "description", "settings.*", "force")),
    summary="Update a story's name, description, settings and root order",
    tag="stories",
    body=StoryUpdateSchema(),
    response=SuccessSchema(),
    errors=(404, 409),
)
async def update_story(request: web.Request, body: dict[str, Any]) -> Any:
    story_id = request.match_info["story"]
    principal = principal_of(request)
    before = await request.app[STORIES].update(
        account_id=account_of(request),
        story_id=story_id,
        may_publish=principal.role in PUBLISHING,
        by=actor_of(principal),
        **body,
    )
    note = note_of(request)
    if note is not None:
        settings = {**asdict(before.settings), "published": before.published}
        note.before = {
            "name": before.name,
            "description": before.description,
            **{f"settings.{name}": value for name, value in settings.items()},
        }
        if "published" in body.get("settings", {}):
            published = body["settings"]["published"]
            note.kind = "story.unpublish" if published is None else "story.publish"
    return success()


@routes.delete("/stories/{story}")
@endpoint(
    audit=Audited("story.delete"),
    summary="Delete a story, its interactions and its conversations",
    tag="stories",
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_story(request: web.Request) -> Any:
    story_id = request.match_info["story"]
    await request.app[STORIES].delete(account_id=account_of(request), story_id=story_id)
    return success()
