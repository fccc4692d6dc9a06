from datetime import timedelta
from typing import Any

from aiohttp import web

from bot_api.api.common import DELIVERIES, STORY_CACHE, account_of, stores_of
from bot_api.conversations.answering import answer
from bot_api.engine.conversation import Turn
from bot_api.schemas.query import QueryRequestSchema, QueryResponseSchema
from shared.endpoints import ANY_TOKEN, endpoint
from shared.envelope import envelope
from shared.keys import CONFIG

QUERY_STATUS_FIELD = "type"

routes = web.RouteTableDef()


@routes.post("/query")
@endpoint(
    summary="Send what a user said, a trigger or a goto; get the bot's answer",
    tag="query",
    auth=ANY_TOKEN,
    cached_auth=True,
    body=QueryRequestSchema(),
    response=QueryResponseSchema(),
    status_field=QUERY_STATUS_FIELD,
    errors=(404, 409),
)
async def query(request: web.Request, body: dict[str, Any]) -> Any:
    turn = Turn(
        query=body.get("query"),
        trigger=body.get("trigger"),
        goto=body.get("goto"),
        parameters=body["parameters"],
        confidence=body.get("confidence"),
        lifespan=body.get("lifespan"),
        reset=body["reset"],
        debug=body["debug"],
    )
    result = await answer(
        request.app[STORY_CACHE],
        stores_of(request).sessions,
        request.app[DELIVERIES],
        account_of(request),
        body.get("storyId"),
        body["sessionId"],
        turn,
        timedelta(seconds=request.app[CONFIG].session_idle_seconds),
    )
    return {
        "result": result,
        "sessionId": body["sessionId"],
        **envelope(QUERY_STATUS_FIELD, 200, "success"),
    }
