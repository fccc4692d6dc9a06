from typing import Any

from aiohttp import web

from bot_api.api.common import account_of, changes_of, created, stores_of, success
from bot_api.management import entities
from bot_api.schemas.common import CreatedSchema, SuccessSchema
from bot_api.schemas.entities import EntitySchema, EntityWriteSchema
from shared.endpoints import endpoint

routes = web.RouteTableDef()


@routes.get("/entities")
@endpoint(summary="List the entities", tag="entities", response=EntitySchema(many=True))
async def list_entities(request: web.Request) -> Any:
    return await entities.list_entities(stores_of(request), account_of(request))


@routes.post("/entities")
@endpoint(
    summary="Create an entity",
    tag="entities",
    body=EntityWriteSchema(),
    response=CreatedSchema(),
    errors=(409,),
)
async def create_entity(request: web.Request, body: dict[str, Any]) -> Any:
    entity_id = await entities.create_entity(stores_of(request), account_of(request), body)
    await changes_of(request).entities_changed(account_of(request))
    return created(entity_id)


@routes.get("/entities/{id}")
@endpoint(summary="Read an entity", tag="entities", response=EntitySchema(), errors=(404,))
async def read_entity(request: web.Request) -> Any:
    entity_id = request.match_info["id"]
    return await entities.read_entity(stores_of(request), account_of(request), entity_id)


@routes.put("/entities/{id}")
@endpoint(
    summary="Replace an entity's name and entries (no rename while interactions use it)",
    tag="entities",
    body=EntityWriteSchema(),
    response=SuccessSchema(),
    errors=(404, 409),
)
async def update_entity(request: web.Request, body: dict[str, Any]) -> Any:
    entity_id = request.match_info["id"]
    await entities.update_entity(stores_of(request), account_of(request), entity_id, body)
    await changes_of(request).entities_changed(account_of(request))
    return success()


@routes.delete("/entities/{id}")
@endpoint(
    summary="Delete an entity no interaction uses",
    tag="entities",
    response=SuccessSchema(),
    errors=(404, 409),
)
async def delete_entity(request: web.Request) -> Any:
    entity_id = request.match_info["id"]
    await entities.delete_entity(stores_of(request), account_of(request), entity_id)
    await changes_of(request).entities_changed(account_of(request))
    return success()
