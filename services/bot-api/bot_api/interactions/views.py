from typing import Any

from aiohttp import web
from marshmallow import fields

from bot_api.common.schemas import CreatedSchema, SuccessSchema
from bot_api.common.views import account_of, created_once, success
from bot_api.domain.interactions import Interaction
from bot_api.domain.structure import ContextChange
from bot_api.interactions.keys import INTERACTIONS
from bot_api.interactions.schemas import (
    INTERACTION_IDS,
    ContextUpdateSchema,
    InteractionSchema,
    InteractionUpdateSchema,
    InteractionWriteSchema,
)
from shared.auditing import Audited
from shared.endpoints import PAGE, TOTAL, endpoint
from shared.idempotency import uuid_from

routes = web.RouteTableDef()


@routes.get("/stories/{story}/interactions")
@endpoint(
    summary="List a story's interactions, in tree order",
    tag="interactions",
    response=InteractionSchema(many=True),
    errors=(404,),
    paged=True,
)
async def list_interactions(request: web.Request) -> Any:
    story_id = request.match_info["story"]
    interactions, request[TOTAL] = await request.app[INTERACTIONS].list_interactions(
        account_id=account_of(request), story_id=story_id, page=request[PAGE]
    )
    return interactions


@routes.post("/stories/{story}/interactions")
@endpoint(
    audit=Audited("interaction.create"),
    summary="Create a root interaction",
    tag="interactions",
    body=InteractionWriteSchema(),
    response=CreatedSchema(),
    errors=(404, 409),
)
async def create_root_interaction(request: web.Request, body: Interaction) -> Any:
    return await _create_interaction(request, body, parent_id=None)


@routes.get("/stories/{story}/interactions/{id}")
@endpoint(
    summary="Read an interaction", tag="interactions", response=InteractionSchema(), errors=(404,)
)
async def read_interaction(request: web.Request) -> Any:
    return await request.app[INTERACTIONS].read(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        interaction_id=request.match_info["id"],
    )


@routes.post("/stories/{story}/interactions/{id}")
@endpoint(
    audit=Audited("interaction.create"),
    summary="Create a child interaction owned by the interaction {id}",
    tag="interactions",
    body=InteractionWriteSchema(),
    response=CreatedSchema(),
    errors=(404, 409),
)
async def create_child_interaction(request: web.Request, body: Interaction) -> Any:
    return await _create_interaction(request, body, parent_id=request.match_info["id"])


async def _create_interaction(
    request: web.Request, body: Interaction, parent_id: str | None
) -> dict[str, Any]:
    async def create(account_id: str, new_id: str | None) -> str:
        return await request.app[INTERACTIONS].create(
            account_id=account_id,
            story_id=request.match_info["story"],
            interaction=body,
            parent_id=parent_id,
            new_id=new_id,
        )

    return await created_once(request, body, create, uuid_from)


@routes.put("/stories/{story}/interactions/{id}")
@endpoint(
    audit=Audited("interaction.update"),
    summary="Update an interaction; omitted fields keep their values",
    tag="interactions",
    body=InteractionUpdateSchema(),
    response=SuccessSchema(),
    errors=(404, 409),
)
async def update_interaction(request: web.Request, body: dict[str, Any]) -> Any:
    await request.app[INTERACTIONS].update(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        interaction_id=request.match_info["id"],
        changes=body,
    )
    return success()


@routes.delete("/stories/{story}/interactions")
@endpoint(
    audit=Audited("interactions.delete"),
    summary="Delete interactions with the subtrees they own (all or nothing)",
    tag="interactions",
    body=INTERACTION_IDS,
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_interactions(request: web.Request, body: list[str]) -> Any:
    await request.app[INTERACTIONS].delete(
        account_id=account_of(request), story_id=request.match_info["story"], interaction_ids=body
    )
    return success()


@routes.put("/stories/{story}/contexts")
@endpoint(
    audit=Audited("contexts.update"),
    summary="Update the contexts (root, contextOut, references) of the listed interactions",
    tag="interactions",
    body=fields.List(fields.Nested(ContextUpdateSchema), required=True),
    response=SuccessSchema(),
    errors=(404,),
)
async def update_contexts(request: web.Request, body: list[ContextChange]) -> Any:
    await request.app[INTERACTIONS].update_contexts(
        account_id=account_of(request), story_id=request.match_info["story"], changes=body
    )
    return success()
