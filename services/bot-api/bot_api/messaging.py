"""bot-api's side of NATS: answering integrations-api's look-ups about stories.

Look-ups call the same management function as the HTTP handlers, so tenancy is the same.
"""

import logging
from collections.abc import AsyncIterator

from aiohttp import web
from nats.aio.msg import Msg

from bot_api.api.common import STORES
from bot_api.management.stories import load_story
from shared.errors import NotFound
from shared.events import STORY_LOOKUP, StoryLookup, StoryLookupReply
from shared.service import NATS

log = logging.getLogger(__name__)
RESPONDERS = "bot-api"


async def story_lookups(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: answer story look-ups while the app runs (a queue group, so each
    look-up is answered by one replica)."""

    async def answer(message: Msg) -> None:
        try:
            lookup = StoryLookup.decode(message.data)
        except (ValueError, KeyError) as error:
            log.warning("unreadable story look-up: %s", error)
            return
        try:
            story = await load_story(app[STORES], lookup.account_id, lookup.story_id)
            reply = StoryLookupReply(found=True, name=story.name)
        except NotFound:
            reply = StoryLookupReply(found=False)
        await message.respond(reply.encode())

    subscription = await app[NATS].subscribe(STORY_LOOKUP, queue=RESPONDERS, cb=answer)
    yield
    await subscription.unsubscribe()
