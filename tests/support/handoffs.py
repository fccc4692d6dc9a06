"""A story that hands conversations to a person, for the handoff and desk tests: the
connection is integrations-api's (in-process), the person's system a loopback server
checking each call's signature as docs/webhooks.md says."""

import base64
import dataclasses
import json
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient
from standardwebhooks import Webhook

from bot_api.connections.keys import CONNECTION_VIEW
from integrations_api.app import create_app
from shared.config import Config
from support.api import Api, Tenant
from support.waiting import eventually

WHSEC = "whsec_" + base64.b64encode(b"the person's side").decode()


class PersonSide:
    """The handoff connection's backend: keeps each verified call's body."""

    def __init__(self) -> None:
        self.verifier = Webhook(WHSEC)
        self.received: list[dict[str, Any]] = []

    async def handle(self, request: web.Request) -> web.Response:
        data = await request.read()
        self.verifier.verify(data, dict(request.headers))
        self.received.append(json.loads(data))
        return web.json_response({})


@dataclasses.dataclass(frozen=True)
class Handed:
    story_id: str
    connection_id: str
    person: PersonSide
    connections: Api
    """integrations-api's webhook connections, with the developer token."""
    person_url: str


async def hand_over(
    aiohttp_client: Any, aiohttp_server: Any, config: Config, alice: Tenant, bot_api: TestClient
) -> Handed:
    """A story whose "Human" interaction hands over to a connection of the story."""
    person = PersonSide()
    backend = web.Application()
    backend.router.add_post("/person", person.handle)
    server = await aiohttp_server(backend)
    integrations: TestClient = await aiohttp_client(create_app(config))
    api = alice.developer
    story_id = await api.create_story("Shop")
    connections = Api(integrations, alice.tokens.developer_token)
    url = str(server.make_url("/person"))
    created = await connections.post(
        "/v2/integrations/webhook",
        {"storyId": story_id, "name": "Desk", "url": url, "token": WHSEC},
    )
    connection_id = created.body["id"]
    await api.create_interaction(
        story_id,
        "Human",
        userSays=["talk to a human"],
        responses=[
            {"type": "text", "messages": ["A person will answer"]},
            {"type": "handoff", "connection": connection_id},
        ],
    )
    await api.create_interaction(
        story_id, "Hello", userSays=["hello there"], responses=[text("Hi from the bot")]
    )
    view = bot_api.server.app[CONNECTION_VIEW]

    async def known() -> bool:
        return await view.for_webhook(alice.tokens.account_id, story_id, connection_id) is not None

    await eventually(known)
    return Handed(story_id, connection_id, person, connections, url)


def text(message: str) -> dict[str, Any]:
    return {"type": "text", "messages": [message]}


async def say(alice: Tenant, story_id: str, query: str, session: str = "s1") -> dict[str, Any]:
    body = {"storyId": story_id, "sessionId": session, "query": query}
    return dict((await alice.public.ok("POST", "/query", body))["result"])
