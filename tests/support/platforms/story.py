"""The story the channels' end-to-end tests talk to, and the turns integrations-api
asks bot-api for, as one more listener on the subject hears them."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from nats.aio.msg import Msg

from shared.config import Config
from shared.events import ChannelTurn, decode
from shared.messaging import connect
from support.api import Tenant
from support.waiting import eventually

RICH_ANSWER = [
    {"type": "text", "messages": ["Hello {{default_name}}! Our menu:"]},
    {"type": "quickReply", "title": "Size?", "replies": ["Small", "Large"]},
    {
        "type": "card",
        "title": "Margherita",
        "subtitle": "Tomato and mozzarella",
        "imageUrl": "https://img.test/margherita.jpg",
        "buttons": [
            {"title": "Large", "postback": "large"},
            {"title": "Recipe", "postback": "https://recipes.test/margherita"},
        ],
    },
    {"type": "buttonTemplate", "title": "Anything else?", "buttons": [{"title": "No"}]},
    {"type": "image", "imageUrl": "https://img.test/oven.jpg"},
]


async def pizza_story(tenant: Tenant) -> dict[str, str]:
    """A story answering "show me the menu" with every kind of item and "large" with
    a text; its id and the "Sizes" interaction's."""
    api = tenant.developer
    story_id = await api.create_story("Pizza")
    sizes = await api.create_interaction(
        story_id,
        "Sizes",
        userSays=["large"],
        responses=[{"type": "text", "messages": ["Large it is {{default_name}}."]}],
    )
    await api.create_interaction(
        story_id, "Menu", userSays=["show me the menu"], responses=RICH_ANSWER
    )
    return {"story": story_id, "sizes": sizes}


@asynccontextmanager
async def turns_heard(config: Config) -> AsyncIterator[list[ChannelTurn]]:
    asked: list[ChannelTurn] = []
    nats = await connect(config.nats_url, "test-turns")

    async def hear(message: Msg) -> None:
        asked.append(decode(ChannelTurn, message.data))

    subscription = await nats.subscribe(config.subjects.channel_turn, cb=hear)
    try:
        yield asked
    finally:
        await subscription.unsubscribe()
        await nats.close()


async def heard(turns: list[ChannelTurn], count: int) -> list[ChannelTurn]:
    """The turns heard, once `count` were."""

    async def enough() -> bool:
        return len(turns) >= count

    await eventually(enough)
    return turns


async def arrived(values: list[Any], count: int, seconds: float = 5.0) -> list[Any]:
    """`values` once it holds `count` items (what a stand-in accepted)."""

    async def enough() -> bool:
        return len(values) >= count

    await eventually(enough, seconds)
    return values
