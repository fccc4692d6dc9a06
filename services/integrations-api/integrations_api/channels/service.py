"""The channels' use cases (docs/channels.md): the API's create, read, update and
delete, a story's change, and a person's message during a handoff. The platform's
calls and their answers are in `conversations.py`.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from marshmallow import ValidationError
from prometheus_client import Counter

from integrations_api.channels.accepted import AcceptedMessages
from integrations_api.channels.platform import Call, Outgoing, Pause, Skipped
from integrations_api.channels.platforms import PLATFORMS, REGISTRATIONS
from integrations_api.channels.repository import (
    ACTIVE,
    ERROR,
    Channel,
    ChannelFields,
    ChannelStore,
)
from integrations_api.channels.schemas import check_credentials
from integrations_api.channels.sender import REGISTRATION_SECONDS, SendFailed
from integrations_api.channels.work import Work
from integrations_api.stories.directory import StoryDirectory
from integrations_api.stories.service import follow_story, followed_story_name
from shared.errors import Conflict, NotFound, ValidationFailed
from shared.events import ChannelTurn, ChannelTurnReply, HandoffMessage, StoryChanged
from shared.pages import Page

log = logging.getLogger(__name__)

SEND_FAILURES = Counter(
    "parley_channel_send_failures", "Answers a platform did not take, after retries", ["type"]
)
PARTS_LEFT_OUT = Counter(
    "parley_channel_answer_parts_left_out",
    "Parts of answers left out so that the rest goes: a platform would refuse them",
    ["type", "reason"],
)
LONGEST_PAUSE_SECONDS = 10.0
"""A `delay` is at most 10 s (docs/webhooks.md): a longer one is cut to it."""


class Sending(Protocol):
    """The platforms' APIs, with retries (channels/sender.py)."""

    async def send(self, channel_type: str, call: Call, seconds: float = ...) -> None: ...


class Turns(Protocol):
    """bot-api, asked for a channel's turn (channels/turns.py)."""

    async def ask(self, turn: ChannelTurn, turn_id: str) -> ChannelTurnReply:
        """The reply to the turn named `turn_id` (TURN_ID_HEADER)."""


@dataclass(frozen=True)
class ChannelBackends:
    channels: ChannelStore
    accepted: AcceptedMessages
    stories: StoryDirectory
    sender: Sending
    turns: Turns
    work: Work
    quota: int
    """Channels per account (`QUOTA_CHANNELS`)."""


def session_id(channel_id: str, conversation: str, user: str) -> str:
    """A channel's session id in bot-api (shared/events.py): its user in its conversation."""
    return f"{channel_id}:{conversation}:{user}"


def session_address(session: str) -> tuple[str, str, str]:
    """(channel id, conversation, user) of a channel's session id; empty parts when it is
    not one (a /query session)."""
    channel_id, _, rest = session.partition(":")
    conversation, _, user = rest.partition(":")
    return channel_id, conversation, user


def inbound_url(base_url: str, channel_id: str) -> str:
    """Where the platform calls the channel."""
    return f"{base_url.rstrip('/')}/v2/channels/{channel_id}"


async def list_channels(
    backends: ChannelBackends, *, account_id: str, page: Page, only: frozenset[str] | None = None
) -> tuple[list[Channel], int]:
    """A page of the account's channels (of the stories in `only`, a member's) and their
    total."""
    channels = backends.channels
    return await channels.list(account_id, page, only), await channels.count(account_id, only)


async def read_channel(backends: ChannelBackends, *, account_id: str, channel_id: str) -> Channel:
    channel = await backends.channels.get(account_id, channel_id)
    if channel is None:
        raise NotFound(f"no channel {channel_id}")
    return channel


async def create_channel(
    backends: ChannelBackends,
    *,
    account_id: str,
    story_id: str,
    channel_type: str,
    fields: ChannelFields,
    base_url: str,
    new_id: str | None = None,
) -> str:
    """The new channel's id, its webhook registered where Parley does that. Under
    `new_id` when given (a retried create), which may exist already."""
    if new_id is not None and await backends.channels.get(account_id, new_id):
        return new_id
    story_name = await followed_story_name(backends.stories, account_id, story_id)
    if await backends.channels.count(account_id) >= backends.quota:
        raise Conflict(
            f"quota reached: channels per account (at most {backends.quota})",
            {"quota": "channels", "limit": backends.quota},
        )
    channel = await backends.channels.insert(
        account_id, story_id, story_name, channel_type, fields, new_id
    )
    log.info("channel %s (%s) created for story %s", channel.id, channel_type, story_id)
    await _register(backends, channel, base_url)
    return channel.id


async def update_channel(
    backends: ChannelBackends,
    *,
    account_id: str,
    channel_id: str,
    fields: ChannelFields,
    base_url: str,
) -> str:
    """Rename, or replace the credentials; the webhook is registered again (which mends
    a channel whose registration was refused). The id of the channel's story."""
    current = await read_channel(backends, account_id=account_id, channel_id=channel_id)
    if fields.credentials is not None:
        try:
            check_credentials(current.type, dict(fields.credentials))
        except ValidationError as error:
            raise ValidationFailed.of_tree(dict(error.messages_dict)) from None
    channel = await backends.channels.update(account_id, channel_id, fields)
    if channel is None:
        raise NotFound(f"no channel {channel_id}")
    log.info("channel %s updated", channel_id)
    await _register(backends, channel, base_url)
    return channel.story_id


async def delete_channel(backends: ChannelBackends, *, account_id: str, channel_id: str) -> str:
    """The id of the deleted channel's story."""
    deleted = await backends.channels.delete(account_id, channel_id)
    if deleted is None:
        raise NotFound(f"no channel {channel_id}")
    log.info("channel %s deleted", channel_id)
    return deleted.story_id


async def _register(backends: ChannelBackends, channel: Channel, base_url: str) -> None:
    """Register the webhook; a refusal keeps the channel, with `status: "error"` and
    the platform's reason, until a PUT registers it again."""
    registration = REGISTRATIONS.get(channel.type)
    if registration is None:
        return
    url = inbound_url(base_url, channel.id)
    try:
        await backends.sender.send(
            channel.type, registration(channel.credentials, url), REGISTRATION_SECONDS
        )
    except SendFailed as failure:
        log.warning("channel %s: webhook not registered: %s", channel.id, failure)
        await backends.channels.set_status(channel.account_id, channel.id, ERROR, str(failure))
        return
    await backends.channels.set_status(channel.account_id, channel.id, ACTIVE, None, url)


async def register_where_moved(backends: ChannelBackends, base_url: str) -> int:
    """Register again, one after the other, the webhooks Parley registered somewhere else
    than `base_url` (INTEGRATIONS_PUBLIC_URL changed: a laptop's tunnel has a new
    address each time it starts), or never managed to: done at start-up, so a new
    address needs no token typed again. How many were registered again."""
    moved = [
        channel
        for channel_type in REGISTRATIONS
        async for channel in backends.channels.of_type(channel_type)
        if channel.webhook_url != inbound_url(base_url, channel.id)
    ]
    for channel in moved:
        await _register(backends, channel, base_url)
    if moved:
        log.info("%d channel webhooks registered again at %s", len(moved), base_url)
    return len(moved)


async def story_changed(backends: ChannelBackends, *, event: StoryChanged) -> None:
    """Channels follow their story: deleted with it, renamed with it."""
    await follow_story(backends.channels, backends.stories, event)


async def handoff_message(backends: ChannelBackends, *, message: HandoffMessage) -> None:
    """A person's message to a user on a channel; one for a session of no channel of
    the story (a /query session, a deleted channel) is dropped."""
    channel_id, conversation, user = session_address(message.session_id)
    channel = await backends.channels.get(message.account_id, channel_id)
    platform = PLATFORMS.get(channel.type) if channel is not None else None
    if channel is None or platform is None or channel.story_id != message.story_id or not user:
        log.info("handoff message for session %s: no such channel, dropped", message.session_id)
        return
    await send_all(
        backends, channel, list(platform.text(channel.credentials, conversation, message.text))
    )


async def send_all(
    backends: ChannelBackends,
    channel: Channel,
    outgoing: list[Outgoing],
    sending: Callable[[int], Awaitable[None]] | None = None,
) -> bool:
    """Send the calls in order, pausing where asked and counting what was left out,
    telling `sending` the number (in `outgoing`) of each call before it goes; the first
    failure stops them and lands on the channel's `error` (and the metric), a success
    clears it."""
    try:
        for number, step in enumerate(outgoing):
            if isinstance(step, Skipped):
                PARTS_LEFT_OUT.labels(channel.type, step.reason).inc()
                log.info("channel %s: a part of an answer left out: %s", channel.id, step.reason)
            elif isinstance(step, Pause):
                await asyncio.sleep(min(step.seconds, LONGEST_PAUSE_SECONDS))
            else:
                if sending is not None:
                    await sending(number)
                await backends.sender.send(channel.type, step)
    except SendFailed as failure:
        SEND_FAILURES.labels(channel.type).inc()
        log.warning("channel %s: %s", channel.id, failure)
        await backends.channels.record_delivery(channel.account_id, channel.id, str(failure))
        return False
    await backends.channels.record_delivery(channel.account_id, channel.id, None)
    return True
