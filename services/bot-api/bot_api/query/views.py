from typing import Any

from aiohttp import web

from bot_api.common.views import account_of
from bot_api.keys import RATE_LIMITS
from bot_api.query.keys import CONVERSATIONS
from bot_api.query.repeats import TURN_KEY_CHARACTERS, TURN_KEY_HEADER, TurnKey
from bot_api.query.schemas import (
    MAX_QUERY_BODY_BYTES,
    QUERY_STATUS_FIELD,
    QueryRequestSchema,
    QueryResponseSchema,
    turn_of,
)
from shared.auth import TokenKind
from shared.endpoints import ANY_TOKEN, endpoint, principal_of
from shared.errors import BadRequest, Forbidden
from shared.roles import require_story

routes = web.RouteTableDef()


@routes.post("/query")
@endpoint(
    summary="Send what a user said, a trigger or a goto; get the bot's answer",
    tag="query",
    auth=ANY_TOKEN,
    cached_auth=True,
    rate_limit="query",
    body=QueryRequestSchema(),
    body_bytes=MAX_QUERY_BODY_BYTES,
    response=QueryResponseSchema(),
    status_field=QUERY_STATUS_FIELD,
    errors=(404, 409),
)
async def query(request: web.Request, body: dict[str, Any]) -> Any:
    request.app[RATE_LIMITS].session(principal_of(request), body["sessionId"])
    if body["debug"] and principal_of(request).kind is not TokenKind.DEVELOPER:
        # The debug view shows the story's phrases, ids and names: the developer's, not
        # the chat user's (the public key is in every page that embeds the bot).
        raise Forbidden("debug: true needs the developer token")
    story_id = body.get("storyId")
    if principal_of(request).stories is not None:
        if story_id is None:
            raise BadRequest("storyId: a member narrowed to some stories names the story")
        require_story(principal_of(request), story_id)
    return await request.app[CONVERSATIONS].answer(
        account_id=account_of(request),
        story_id=story_id,
        session_id=body["sessionId"],
        turn=turn_of(body),
        published=principal_of(request).kind is TokenKind.PUBLIC,
        key=turn_key(request, body),
    )


def turn_key(request: web.Request, body: dict[str, Any]) -> TurnKey | None:
    """The turn's key, when the gateway (or a client) named the request: a /query passed
    on to another replica is answered as the first was (query/repeats.py)."""
    key = request.headers.get(TURN_KEY_HEADER)
    if key is None:
        return None
    if not 0 < len(key) <= TURN_KEY_CHARACTERS or not key.isprintable():
        raise BadRequest(
            f"{TURN_KEY_HEADER}: 1 to {TURN_KEY_CHARACTERS} printable characters, or none"
        )
    return TurnKey.of(key, body)
