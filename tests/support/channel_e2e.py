"""What the channels' end-to-end tests share: a platform's stand-in served on
127.0.0.1, integrations-api calling it beside a running bot-api, the story the tests
talk to, a channel of that story, and the turns integrations-api asks bot-api for, as
one more listener on the subject hears them."""

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol, TypeVar

from aiohttp import web
from aiohttp.test_utils import TestClient
from nats.aio.msg import Msg

from integrations_api.app import create_app
from shared.config import Config
from shared.events import ChannelTurn, decode
from shared.messaging import connect
from support.api import Api, Tenant
from support.waiting import eventually

CHANNELS = "/v2/integrations/channels"


class StandIn(Protocol):
    url: str

    def app(self) -> web.Application: ...


Served = TypeVar("Served", bound=StandIn)
Item = TypeVar("Item")


async def serve(aiohttp_server: Any, stand_in: Served) -> Served:
    """The stand-in listening, its `url` set."""
    stand_in.url = str((await aiohttp_server(stand_in.app())).make_url(""))
    return stand_in


async def integrations_api(aiohttp_client: Any, config: Config, **settings: Any) -> TestClient:
    """integrations-api with `settings` changed: the platform's API address
    (`telegram_api_url`, `slack_api_url`, `meta_graph_url`: its stand-in's), a limit."""
    client: TestClient = await aiohttp_client(create_app(dataclasses.replace(config, **settings)))
    return client


async def create_channel(
    api: Api, story_id: str, channel_type: str, credentials: dict[str, str]
) -> str:
    """A channel of the story on the platform, through the channel API; its id."""
    body = {"storyId": story_id, "type": channel_type, "name": "Pizza bot",
            "credentials": credentials}  # fmt: skip
    reply = await api.post(CHANNELS, body)
    assert reply.status == 201, reply.body
    return str(reply.body["id"])


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
    """The turns integrations-api asks, in order (bot-api, the `bot_api` fixture, answers
    them)."""
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


async def arrived(values: list[Item], count: int, seconds: float = 5.0) -> list[Item]:
    """`values` once it holds `count` items (what a stand-in accepted, the turns heard)."""

    async def enough() -> bool:
        return len(values) >= count

    await eventually(enough, seconds)
    return values
