"""The channels' repositories in memory, held to the contract of their MongoDB twins
(channels/repository.py, channels/deliveries.py) by
tests/integration/integrations_api/channels/test_channel_repository.py and
test_delivery_record.py."""

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

from integrations_api.channels.accepted import AcceptedMessages
from integrations_api.channels.deliveries import DELIVERY_MEMORY, Accepted, Kept
from integrations_api.channels.repository import (
    Channel,
    ChannelFields,
    channel_of,
    new_document,
    updated_values,
)
from shared.ids import new_channel_id
from shared.pages import Page
from shared.timeutil import utcnow


class ChannelsInMemory:
    def __init__(self) -> None:
        self.channels: dict[str, Channel] = {}

    async def ensure_indexes(self) -> None:
        pass

    def _of_story(self, account_id: str, story_id: str) -> list[Channel]:
        return [
            c
            for c in self.channels.values()
            if (c.account_id, c.story_id) == (account_id, story_id)
        ]

    async def insert(
        self,
        account_id: str,
        story_id: str,
        story_name: str,
        channel_type: str,
        fields: ChannelFields,
        channel_id: str | None = None,
    ) -> Channel:
        document = new_document(account_id, story_id, story_name, channel_type, fields)
        channel = channel_of({"_id": channel_id or new_channel_id(), **document})
        self.channels[channel.id] = channel
        return channel

    def _of(self, account_id: str, only: frozenset[str] | None) -> list[Channel]:
        return [
            c
            for c in self.channels.values()
            if c.account_id == account_id and (only is None or c.story_id in only)
        ]

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[Channel]:
        return page.of(self._of(account_id, only))

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int:
        return len(self._of(account_id, only))

    async def get(self, account_id: str, channel_id: str) -> Channel | None:
        channel = self.channels.get(channel_id)
        return channel if channel is not None and channel.account_id == account_id else None

    async def find(self, channel_id: str) -> Channel | None:
        return self.channels.get(channel_id)

    async def update(
        self, account_id: str, channel_id: str, fields: ChannelFields
    ) -> Channel | None:
        current = await self.get(account_id, channel_id)
        if current is None:
            return None
        values = updated_values(current, fields)
        self.channels[channel_id] = dataclasses.replace(
            current,
            name=values["name"],
            credentials=values.get("credentials", current.credentials),
            updated_at=values["updatedAt"],
        )
        return self.channels[channel_id]

    async def set_status(
        self,
        account_id: str,
        channel_id: str,
        status: str,
        error: str | None,
        webhook_url: str | None = None,
    ) -> None:
        current = await self.get(account_id, channel_id)
        if current is not None:
            self.channels[channel_id] = dataclasses.replace(
                current, status=status, error=error, webhook_url=webhook_url
            )

    async def of_type(self, channel_type: str) -> AsyncIterator[Channel]:
        for channel in list(self.channels.values()):
            if channel.type == channel_type:
                yield channel

    async def record_delivery(self, account_id: str, channel_id: str, error: str | None) -> None:
        current = await self.get(account_id, channel_id)
        if current is not None:
            self.channels[channel_id] = dataclasses.replace(current, error=error)

    async def used_by_story(self, account_id: str, story_id: str) -> bool:
        return any(self._of_story(account_id, story_id))

    async def rename_story(self, account_id: str, story_id: str, name: str) -> None:
        for channel in self._of_story(account_id, story_id):
            self.channels[channel.id] = dataclasses.replace(channel, story_name=name)

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        for channel in self._of_story(account_id, story_id):
            del self.channels[channel.id]

    async def delete(self, account_id: str, channel_id: str) -> Channel | None:
        current = await self.get(account_id, channel_id)
        if current is not None:
            del self.channels[channel_id]
        return current


@dataclass
class DeliveryInMemory:
    """A document of `channel_deliveries`, as DeliveryRecord keeps it."""

    expires_at: datetime
    message: bytes | None = None
    holder: str | None = None
    lease_until_ms: int | None = None
    sending: int | None = None
    done_at_ms: int | None = None


class DeliveriesInMemory:
    def __init__(self) -> None:
        self.deliveries: dict[tuple[str, str], DeliveryInMemory] = {}
        """In the order they were accepted."""

    async def ensure_indexes(self) -> None:
        pass

    async def accept(self, channel_id: str, delivery_id: str, kept: Kept | None) -> bool:
        now = utcnow()
        key = (channel_id, delivery_id)
        if key in self.deliveries and self.deliveries[key].expires_at > now:
            return False
        self.deliveries.pop(key, None)  # expired: accepted anew, the newest
        delivery = DeliveryInMemory(now + DELIVERY_MEMORY)
        if kept is not None:
            delivery = DeliveryInMemory(
                now + DELIVERY_MEMORY, kept.message, kept.holder, kept.lease_until_ms
            )
        self.deliveries[key] = delivery
        return True

    async def renew(self, holder: str, lease_until_ms: int) -> None:
        for delivery in self.deliveries.values():
            if delivery.holder == holder:
                delivery.lease_until_ms = lease_until_ms

    async def take_over(self, holder: str, now_ms: int, lease_until_ms: int) -> Accepted | None:
        for (channel_id, delivery_id), delivery in self.deliveries.items():
            lease = delivery.lease_until_ms
            if lease is not None and lease < now_ms and delivery.message is not None:
                delivery.holder, delivery.lease_until_ms = holder, lease_until_ms
                return Accepted(channel_id, delivery_id, delivery.message, delivery.sending)
        return None

    async def sending(self, channel_id: str, delivery_id: str, call: int) -> None:
        delivery = self.deliveries.get((channel_id, delivery_id))
        if delivery is not None:
            delivery.sending = call

    async def done(self, channel_id: str, delivery_id: str, now_ms: int) -> None:
        delivery = self.deliveries.get((channel_id, delivery_id))
        if delivery is not None:
            self.deliveries[channel_id, delivery_id] = DeliveryInMemory(
                delivery.expires_at, done_at_ms=now_ms
            )


def accepted() -> AcceptedMessages:
    """The accepted messages of a replica, kept in memory."""
    return AcceptedMessages(DeliveriesInMemory(), "replica")
