"""A platform's call to a channel and the answer it gets (docs/channels.md).

The call is authenticated, read and acknowledged at once; each message it carries is
recorded (`accepted.py`: kept until answered, so another replica answers it if this one
dies) and answered in the background (`work.py`): bot-api is asked for the turn, as the
public /query would answer it, and its answer (shared/fulfillment.py) is sent back
through the platform's API.
A delivery id seen before (the platform retrying) is not answered again.
"""

import asyncio
import json
import logging

from prometheus_client import Counter

from integrations_api.channels.accepted import TakenOver
from integrations_api.channels.platform import (
    Answer,
    Incoming,
    Profile,
    Reply,
    Request,
    Skipped,
)
from integrations_api.channels.platforms import PLATFORMS
from integrations_api.channels.repository import Channel
from integrations_api.channels.service import ChannelBackends, send_all, session_id
from integrations_api.channels.turns import TurnUnanswered, turn_id
from shared.errors import BadRequest, Unauthorized
from shared.events import ChannelTurn, UndecodableEvent

log = logging.getLogger(__name__)

NOT_THE_PLATFORMS = "not a call of this channel's platform (signed or verified as it does)"

EVENTS_SKIPPED = Counter(
    "parley_channel_events_skipped",
    "Events of a platform's call left unanswered, the call's others answered",
    ["type", "reason"],
)
TURNS_FAILED = Counter(
    "parley_channel_turns_failed",
    "Channel messages left without their turn: bot-api refused it, or never answered it",
    ["type"],
)
TAKEN_OVER = Counter(
    "parley_channel_messages_taken_over",
    "Channel messages answered by another replica than the one that accepted them "
    "(it stopped renewing their leases)",
    ["type"],
)
CALLS_UNREADABLE = Counter(
    "parley_channel_calls_unreadable",
    "Authenticated platform calls answered 400: a body the platform never sends",
    ["type"],
)


async def receive(
    backends: ChannelBackends, *, channel_id: str, request: Request, now: float
) -> Reply | None:
    """What to answer the platform (None: a plain 200); 401 when the call is not the
    platform's, 400 for a body it would never send. A call to no channel is answered as
    one that failed the channel's authentication, word for word: the answer never tells
    a stranger which ids are channels' (issue 29)."""
    channel = await backends.channels.find(channel_id)
    platform = PLATFORMS.get(channel.type) if channel is not None else None
    if channel is None or platform is None:
        log.info("a call to no channel (%s)", channel_id[:64])
        raise Unauthorized(NOT_THE_PLATFORMS)
    credentials = channel.credentials
    if request.method == "GET":
        reply = platform.challenge(credentials, request)
        if reply is None:
            log.info("channel %s: a call failed the platform's verification", channel.id)
            raise Unauthorized(NOT_THE_PLATFORMS)
        return reply
    if not platform.authenticate(credentials, request, now):
        log.info("channel %s: a call failed the platform's authentication", channel.id)
        raise Unauthorized(NOT_THE_PLATFORMS)
    reply = platform.challenge(credentials, request)
    if reply is not None:
        return reply
    try:
        incoming = platform.read(credentials, request.body)
    except ValueError as error:
        CALLS_UNREADABLE.labels(channel.type).inc()
        raise BadRequest(f"not a call {channel.type} sends: {error}") from None
    for message in incoming:
        if isinstance(message, Skipped):
            EVENTS_SKIPPED.labels(channel.type, message.reason).inc()
            log.warning("channel %s: an event skipped: %s", channel.id, message.reason)
        elif await backends.accepted.accept(channel.id, message):
            await _submit(backends, channel, message)
    return None


async def resume(backends: ChannelBackends, taken: TakenOver) -> None:
    """Answer a message taken over from a replica that stopped (`accepted.py`) as if
    just received, from the first call its holder did not send. A Telegram click's
    answer, the first call, is not sent late: Telegram refuses it after a few seconds
    (400 "query is too old"), which would stop the answer's other sends. A message of a
    channel deleted since needs nothing more."""
    incoming = taken.incoming
    channel = await backends.channels.find(taken.channel_id)
    if channel is None or channel.type not in PLATFORMS:
        await backends.accepted.done(taken.channel_id, incoming.delivery_id)
        return
    TAKEN_OVER.labels(channel.type).inc()
    log.info("channel %s: a message taken over from a replica that stopped", channel.id)
    first_call = max(taken.first_call, 1) if incoming.callback else taken.first_call
    await _submit(backends, channel, incoming, first_call)


async def _submit(
    backends: ChannelBackends, channel: Channel, incoming: Incoming, first_call: int = 0
) -> None:
    """Answer the message in the background, from its call `first_call`; once answered
    (or failed: logged, not tried again) or dropped by Work's backlogs, it needs nothing
    more. A job cancelled (at shutdown) leaves it held by no one: another replica takes
    it over."""

    async def job(turn_slot: asyncio.Semaphore) -> None:
        try:
            await answer(backends, channel, incoming, turn_slot, first_call)
        except Exception:
            log.exception("channel %s: a message could not be answered", channel.id)
        await backends.accepted.done(channel.id, incoming.delivery_id)

    if not backends.work.submit(
        channel.account_id, channel.id, channel.type, incoming.conversation, job
    ):
        await backends.accepted.done(channel.id, incoming.delivery_id)


class TurnFailed(Exception):
    """bot-api refused the turn or did not answer it: the message says which."""


async def answer(
    backends: ChannelBackends,
    channel: Channel,
    incoming: Incoming,
    turn_slot: asyncio.Semaphore,
    first_call: int = 0,
) -> None:
    """Send the turn's answer, asked of bot-api while holding the account's `turn_slot`
    (channels/work.py), from its call `first_call` (those before went: a message taken
    over), each call's number recorded before it goes; when there is none, what the
    platform still needs (a click answered), and the reason on the channel's `error`, a
    log line and a metric."""
    try:
        async with turn_slot:
            answer, problem = await _turn(backends, channel, incoming), None
    except TurnFailed as failed:
        answer, problem = (), str(failed)
        TURNS_FAILED.labels(channel.type).inc()
        log.warning("channel %s: no turn: %s", channel.id, problem)
    outgoing = PLATFORMS[channel.type].render(channel.credentials, incoming, answer)

    async def sending(call: int) -> None:
        await backends.accepted.sending(channel.id, incoming.delivery_id, first_call + call)

    if await send_all(backends, channel, outgoing[first_call:], sending) and problem is not None:
        await backends.channels.record_delivery(channel.account_id, channel.id, problem)


async def _turn(backends: ChannelBackends, channel: Channel, incoming: Incoming) -> Answer:
    """The turn's answer (none for a click that carried nothing to say)."""
    if incoming.query is None and incoming.goto is None and incoming.trigger is None:
        return ()
    turn = ChannelTurn(
        account_id=channel.account_id,
        story_id=channel.story_id,
        session_id=session_id(channel.id, incoming.conversation, incoming.user),
        source=channel.type,
        query=incoming.query if incoming.goto is None and incoming.trigger is None else None,
        trigger=incoming.trigger,
        goto=incoming.goto,
        parameters=parameters(channel.type, incoming.profile),
        user_name=incoming.profile.display_name(),
    )
    try:
        reply = await backends.turns.ask(turn, turn_id(channel.id, incoming.delivery_id))
    except TurnUnanswered as unanswered:
        raise TurnFailed(str(unanswered)) from None
    except UndecodableEvent as unreadable:
        raise TurnFailed(f"bot-api's reply is unreadable: {unreadable}") from None
    if reply.status != 200:
        raise TurnFailed(f"bot-api answered {reply.status}: {_details(reply.body)}")
    return reply.answer


def parameters(source: str, profile: Profile) -> dict[str, str]:
    """The `default_*` parameters of the turn: the source, and what the platform told."""
    told = {
        "default_name": profile.name,
        "default_language": profile.language,
        "default_timezone": profile.timezone,
        "default_avatar": profile.avatar,
    }
    return {"default_source": source, **{k: v for k, v in told.items() if v is not None}}


def _details(body: str) -> str:
    try:
        return str(json.loads(body)["status"]["errorDetails"])[:200]
    except (ValueError, KeyError, TypeError):
        return body[:200]
