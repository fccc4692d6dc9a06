"""What integrations-api learns about stories: it asks bot-api over NATS, never reads
bot-api's database."""

from nats.aio.client import Client
from nats.errors import NoRespondersError, TimeoutError

from shared.errors import Unavailable, ValidationFailed
from shared.events import LOOKUP_TIMEOUT_SECONDS, StoryLookup, StoryLookupReply, Subjects


async def story_name(nats: Client, subjects: Subjects, account_id: str, story_id: str) -> str:
    """The name of the account's story, or a 400 naming `storyId`; 503 if bot-api
    does not answer."""
    try:
        message = await nats.request(
            subjects.story_lookup,
            StoryLookup(account_id, story_id).encode(),
            LOOKUP_TIMEOUT_SECONDS,
        )
    except (NoRespondersError, TimeoutError):
        raise Unavailable("bot-api does not answer; nothing was stored") from None
    reply = StoryLookupReply.decode(message.data)
    if not reply.found or reply.name is None:
        raise ValidationFailed.at(("storyId",), f"no story {story_id} in this account")
    return reply.name
