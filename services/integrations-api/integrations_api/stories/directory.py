"""What integrations-api learns about stories: it asks bot-api over NATS, never reads
bot-api's database."""

from typing import Protocol

from nats.aio.client import Client
from nats.errors import NoRespondersError, TimeoutError

from shared.errors import Unavailable
from shared.events import (
    LOOKUP_TIMEOUT_SECONDS,
    StoryLookup,
    StoryLookupReply,
    Subjects,
    decode,
    encode,
)


class StoryNotFound(Exception):
    """The account has no such story (it never had, or it was deleted)."""


class StoryDirectory(Protocol):
    async def name(self, account_id: str, story_id: str) -> str:
        """The story's name; StoryNotFound if the account has no such story."""
        ...


class NatsStoryDirectory:
    def __init__(self, nats: Client, subjects: Subjects) -> None:
        self._nats = nats
        self._subjects = subjects

    async def name(self, account_id: str, story_id: str) -> str:
        """The name of the account's story; StoryNotFound, or Unavailable (503) when
        bot-api does not answer."""
        try:
            message = await self._nats.request(
                self._subjects.story_lookup,
                encode(StoryLookup(account_id, story_id)),
                LOOKUP_TIMEOUT_SECONDS,
            )
        except (NoRespondersError, TimeoutError):
            raise Unavailable("bot-api does not answer; nothing was stored") from None
        reply = decode(StoryLookupReply, message.data)
        if not reply.found or reply.name is None:
            raise StoryNotFound(story_id)
        return reply.name
