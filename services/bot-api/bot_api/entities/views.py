from typing import Any

from aiohttp import web

from bot_api.common.schemas import CreatedSchema, SuccessSchema
from bot_api.common.views import account_of, created_once, success
from bot_api.domain.entities import Entity
from bot_api.entities.keys import ENTITIES
from bot_api.entities.schemas import EntitySchema, EntityWriteSchema
from shared.auditing import Audited
from shared.endpoints import PAGE, TOTAL, endpoint

routes = web.RouteTableDef()


@routes.get("/entities")
@endpoint(
    summary="List the entities, oldest first",
    tag="entities",
    response=EntitySchema(many=True),
    paged=True,
)
async def list_entities(request: web.Request) -> Any:
    entities, request[TOTAL] = await request.app[ENTITIES].list_entities(
        account_id=account_of(request), page=request[PAGE]
    )
    return entities


@routes.post("/entities")
@endpoint(
    audit=Audited("entity.create", shows=("name",)),
    summary="Create an entity",
    tag="entities",
    body=EntityWriteSchema(),
    response=CreatedSchema(),
    errors=(409,),
)
async def create_entity(request: web.Request, body: Entity) -> Any:
    async def create(account_id: str, new_id: str | None) -> str:
        return await request.app[ENTITIES].create(account_id=account_id, entity=body, new_id=new_id)

    return await created_once(request, body, create)


@routes.get("/entities/{id}")
@endpoint(summary="Read an entity", tag="entities", response=EntitySchema(), errors=(404,))
async def read_entity(request: web.Request) -> Any:
    entity_id = request.match_info["id"]
    return await request.app[ENTITIES].read(account_id=account_of(request), entity_id=entity_id)


@routes.put("/entities/{id}")
@endpoint(
    audit=Audited("entity.update", shows=("name",)),
    summary="Replace an entity's name and entries (no rename while interactions use it)",
    tag="entities",
    body=EntityWriteSchema(),
    response=SuccessSchema(),
    errors=(404, 409),
)
async def update_entity(request: web.Request, body: Entity) -> Any:
    entity_id = request.match_info["id"]
    await request.app[ENTITIES].update(
        account_id=account_of(request), entity_id=entity_id, entity=body
    )
    return success()


@routes.delete("/entities/{id}")
@endpoint(
    audit=Audited("entity.delete"),
    summary="Delete an entity no interaction uses",
    tag="entities",
    response=SuccessSchema(),
    errors=(404, 409),
)
async def delete_entity(request: web.Request) -> Any:
    entity_id = request.match_info["id"]
    await request.app[ENTITIES].delete(account_id=account_of(request), entity_id=entity_id)
    return success()
