from typing import Any

from aiohttp import web

from bot_api.api.common import account_of
from bot_api.engine.turn import Turn
from bot_api.keys import CONVERSATIONS
from bot_api.schemas.query import QueryRequestSchema, QueryResponseSchema, result_body
from shared.endpoints import ANY_TOKEN, endpoint
from shared.envelope import envelope

QUERY_STATUS_FIELD = "type"

routes = web.RouteTableDef()


@routes.post("/query")
@endpoint(
    summary="Send what a user said, a trigger or a goto; get the bot's answer",
    tag="query",
    auth=ANY_TOKEN,
    cached_auth=True,
    rate_limit="query",
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
    outcome = await request.app[CONVERSATIONS].answer(
        account_id=account_of(request),
        story_id=body.get("storyId"),
        session_id=body["sessionId"],
        turn=turn,
    )
    return {
        "result": result_body(turn, outcome),
        "sessionId": body["sessionId"],
        **envelope(QUERY_STATUS_FIELD, 200, "success"),
    }
