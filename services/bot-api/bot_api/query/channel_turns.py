"""A channel's turn (shared/events.py `ChannelTurn`, asked by integrations-api over NATS):
answered exactly as the public key's /query would be for the account and the story: the
same validation and time budget, the published version when there is one, the
per-visitor rate limits (the channel's user is the visitor: the session id names them),
the history recorded with the turn's parameters (so `default_source` names the
channel); the reply carries /query's status and JSON body, errors in the same envelope,
and the answer's items in their own codec (shared/fulfillment.py).

A platform's message may be longer than /query's 2,048 characters (Telegram's and
WhatsApp's up to 4,096, Slack's more): it is answered, matched on its first 2,048
characters, and its turn in the history says it was `truncated`.

integrations-api asks again a turn it got no reply to, under the same id (NATS header
`Parley-Turn-Id`, shared/events.py): a repeat while the first is still in hand waits for
its reply (`Repeats`), and one the first answered, on any replica, is answered from the
session (query/repeats.py), so a turn NATS delayed or lost is not answered twice."""

import asyncio
import json
import logging
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot_api.engine.turn import Turn
from bot_api.query.repeats import TurnKey
from bot_api.query.schemas import (
    QUERY_CHARACTERS,
    QUERY_STATUS_FIELD,
    QueryRequestSchema,
    SessionId,
    turn_of,
)
from bot_api.query.service import ConversationService
from shared import fulfillment
from shared.auth import PrincipalCache
from shared.budget import within_budget
from shared.endpoints import load
from shared.envelope import answer_to, error_body
from shared.errors import STATUSES, NotFound, Unavailable
from shared.events import ChannelTurn, ChannelTurnReply
from shared.ids import is_object_id
from shared.rates import RateLimits

log = logging.getLogger(__name__)


REMEMBERED_TURNS = 2_000
"""Replies kept for repeats: integrations-api repeats a turn within its 60 s
(UNANSWERED_SECONDS), and a replica answers at most 32 turns at once, each within its
10 s budget, so about 200 are asked in a minute at full load; a reply is a few KB."""


class Repeats:
    """The replies of the last REMEMBERED_TURNS turns, by id: a repeat waits for the
    first's reply, or has it at once."""

    def __init__(self) -> None:
        self._replies: OrderedDict[str, asyncio.Future[ChannelTurnReply]] = OrderedDict()

    async def once(
        self, turn_id: str, answer: Callable[[], Awaitable[ChannelTurnReply]]
    ) -> ChannelTurnReply:
        known = self._replies.get(turn_id)
        if known is not None:
            return await asyncio.shield(known)
        reply: asyncio.Future[ChannelTurnReply] = asyncio.get_running_loop().create_future()
        self._replies[turn_id] = reply
        while len(self._replies) > REMEMBERED_TURNS:
            self._replies.popitem(last=False)
        try:
            reply.set_result(await answer())
        except BaseException:
            self._replies.pop(turn_id, None)  # cancelled: a repeat is answered anew
            reply.cancel()
            raise
        return reply.result()


@dataclass(frozen=True)
class ChannelTurns:
    conversations: ConversationService
    limits: RateLimits
    principals: PrincipalCache
    budget_seconds: float
    """`REQUEST_BUDGET_SECONDS`, as /query has (shared/budget.py)."""
    repeats: Repeats = field(default_factory=Repeats)

    async def answer(self, request: ChannelTurn, turn_id: str | None = None) -> ChannelTurnReply:
        """The turn's reply; a turn of an id answered before gets that reply again."""
        if turn_id is None:
            return await self._reply(request, turn_id)
        return await self.repeats.once(turn_id, lambda: self._reply(request, turn_id))

    async def _reply(self, request: ChannelTurn, turn_id: str | None) -> ChannelTurnReply:
        seconds = self.budget_seconds
        try:
            async with within_budget(seconds):
                body = await self._answered(request, turn_id)
        except TimeoutError:
            return failed(Unavailable(f"the turn did not finish within {seconds:g} s; try again"))
        except Exception as error:
            return failed(error)
        items = tuple(fulfillment.item_of(item) for item in body["result"]["fulfillment"])
        return ChannelTurnReply(200, json.dumps(body), items)

    async def _answered(self, request: ChannelTurn, turn_id: str | None) -> dict[str, Any]:
        if not is_object_id(request.account_id):
            raise NotFound("no such story in this account")
        principal = await self.principals.public(request.account_id)
        self.limits.query(principal, client=request.session_id)
        body, turn = channel_turn(request)
        self.limits.session(principal, body["sessionId"])
        return await self.conversations.answer(
            account_id=request.account_id,
            story_id=request.story_id,
            session_id=body["sessionId"],
            turn=turn,
            published=True,
            channel=channel_of(request.session_id),
            key=None if turn_id is None else TurnKey.of(turn_id, body),
        )


def channel_turn(request: ChannelTurn) -> tuple[dict[str, Any], Turn]:
    """The turn as a validated /query body (ValidationFailed as /query refuses it) and
    the turn it asks for, its query cut to QUERY_CHARACTERS (and said `truncated`)."""
    said = request.query
    truncated = said is not None and len(said) > QUERY_CHARACTERS
    if said is not None and truncated:
        request = replace(request, query=said[:QUERY_CHARACTERS])
    body = query_request(request)
    named = request.user_name.strip()[:USER_NAME_CHARACTERS] if request.user_name else None
    return body, replace(turn_of(body), truncated=truncated, user_name=named or None)


USER_NAME_CHARACTERS = 128
"""The most of a user's name the session keeps: Telegram's first and last names are up
to 64 characters each."""


def channel_of(session_id: str) -> str:
    """The channel's id: a channel's session id is `<channelId>:<conversation>:<user>`
    (shared/events.py)."""
    return session_id.partition(":")[0]


class ChannelTurnSchema(QueryRequestSchema):
    """/query's body, its session one of a channel's (which /query refuses)."""

    sessionId = SessionId(required=True)


def query_request(request: ChannelTurn) -> dict[str, Any]:
    """The turn as a validated /query body (ValidationFailed as /query refuses it); the
    channel's type is the `default_source` unless the parameters name one."""
    raw: dict[str, Any] = {
        "sessionId": request.session_id,
        "storyId": request.story_id,
        "parameters": {"default_source": request.source, **request.parameters},
    }
    for name in ("query", "trigger", "goto"):
        if getattr(request, name) is not None:
            raw[name] = getattr(request, name)
    loaded: dict[str, Any] = load(ChannelTurnSchema(), raw)
    return loaded


def failed(error: Exception) -> ChannelTurnReply:
    """The reply /query's error middleware would make of `error`."""
    answer = answer_to(error, "a channel's turn")
    return error_reply(answer.status, answer.error_type, answer.details, answer.errors)


def error_reply(
    status: int, error_type: str, details: str, errors: dict[str, Any] | None = None
) -> ChannelTurnReply:
    body = error_body(QUERY_STATUS_FIELD, status, error_type, details, errors, uuid.uuid4().hex)
    return ChannelTurnReply(status, json.dumps(body))


def undecodable(reason: str) -> ChannelTurnReply:
    log.warning("unreadable channel turn: %s", reason)
    return error_reply(400, STATUSES[400].error_type, f"unreadable channel turn: {reason}")
